package baton

import "time"

// sentAheadLeaseIntervals: a run sent ahead may start at most this many heartbeat intervals after
// the executor last heard from an engine (protocol 3's sent-ahead lease).
const sentAheadLeaseIntervals = 2

// contactLease is the sent-ahead lease (protocol 3; docs/EXECUTOR-PROTOCOL.md, "Runs sent ahead
// and contact"), as the Node SDK keeps it (libs/executor-sdk/src/contact-lease.ts): a run held for
// its instant starts only if the last heartbeat an engine answered left no more than 2 × that
// answer's intervalMs before the instant. An executor cut off from the engines lets its held runs
// go instead of starting them, so the engines, which cannot tell a dead executor from a cut-off
// one, may dispatch them again elsewhere without a run starting twice. The acks' handBacks says
// when they did: a change means some held runs may be running elsewhere already. Times are
// time.Now readings, which carry the monotonic clock. Guarded by the executor's lock.
type contactLease struct {
	heardAt   time.Time // when the round of the last answered heartbeat began; zero: none yet
	lease     time.Duration
	handBacks *int64 // the last ack's handBacks; nil until an ack carries it
}

// heard records that an engine answered the heartbeat round begun at sentAt, with the interval
// the executor now beats at and the ack's handBacks. True when handBacks changed: let go of every
// run held for a later instant.
func (c *contactLease) heard(sentAt time.Time, interval time.Duration, handBacks *int64) bool {
	if c.heardAt.IsZero() || !sentAt.Before(c.heardAt) {
		c.heardAt = sentAt
		c.lease = sentAheadLeaseIntervals * interval
	}
	if handBacks == nil {
		return false
	}
	changed := c.handBacks != nil && *c.handBacks != *handBacks
	c.handBacks = handBacks
	return changed
}

// fresh says whether a run held for its instant may start now.
func (c *contactLease) fresh(now time.Time) bool {
	return !c.heardAt.IsZero() && now.Sub(c.heardAt) <= c.lease
}

// silence describes how long no engine has answered, for the log and the callback's error.
func (c *contactLease) silence(now time.Time) string {
	if c.heardAt.IsZero() {
		return "no engine has answered a heartbeat yet"
	}
	return "no engine has answered a heartbeat for " + now.Sub(c.heardAt).Round(time.Millisecond).String()
}

// letGo ends runs sent ahead that may not start (the sent-ahead lease) ABORTED NO_CONTACT without
// running them: the engines take them as never started and dispatch them again. Not under the lock.
func (e *Executor) letGo(jobs []*job, why string) {
	if len(jobs) == 0 {
		return
	}
	e.warn("%d run(s) sent ahead let go without starting (the engines dispatch them again): %s", len(jobs), why)
	for _, j := range jobs {
		j.abort("NO_CONTACT")
		e.finish(j, outcome{kind: "ABORTED", err: abortMessages["NO_CONTACT"] + " (" + why + ")"}, 0)
	}
}
