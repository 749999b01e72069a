package baton

// Version of the Go SDK. A release is tagged `sdks/go/v<Version>` (the tag form Go uses for a
// module in a subdirectory of a repository); CHANGELOG-SDK.md at the repository root says what changed.
const Version = "0.1.0"

// ProtocolVersion is the executor protocol version this SDK speaks (sent in heartbeats). 2: it
// honours a dispatch's startInMs, so engines may send it runs ahead of their instant. 3: it keeps
// the sent-ahead lease (contactLease) and honours the acks' handBacks, so engines hand back the
// runs it held and provably never started when it goes silent.
const ProtocolVersion = 3
