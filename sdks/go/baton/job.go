package baton

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"time"
)

// The log tail a run keeps for the engine (the Node SDK's logTail defaults).
const (
	maxPendingLogLines = 200
	maxLogTailBytes    = 32_768
	maxLogLineBytes    = 4096
	maxAlarmsPerRun    = 100
)

var abortMessages = map[string]string{
	"TIMEOUT":    "aborted by the engine: the run timed out",
	"CANCELLED":  "aborted by the engine: the run was cancelled",
	"REPLACED":   "aborted by the engine: the run was replaced by a newer one",
	"DEADLINE":   "aborted: the run passed its deadline",
	"SHUTDOWN":   "aborted: the executor is shutting down",
	"NO_CONTACT": "not started: sent ahead, and no engine had answered a heartbeat within the sent-ahead lease before its instant (or the engines handed it back)",
}

type logLine struct {
	At      int64  `json:"at"`
	Level   string `json:"level"`
	Message string `json:"message"`
	seq     int64
}

type businessAlarm struct {
	Severity Severity        `json:"severity"`
	Message  string          `json:"message"`
	Data     json.RawMessage `json:"data,omitempty"`
	At       int64           `json:"at"`
	ID       string          `json:"id"`
}

// job is one accepted attempt, queued or running.
type job struct {
	req    dispatchRequest
	key    string
	ctx    context.Context
	cancel context.CancelFunc
	warn   func(string, ...any)

	// Guarded by the executor's lock.
	state     string // QUEUED, RUNNING
	startedAt int64
	startAt   int64 // a run sent ahead: the instant it starts at (epoch ms); 0 for one due now

	mu            sync.Mutex // what the handler reports
	abortReason   string
	logs          []logLine
	logSeq        int64
	dropped       int
	progress      float64
	hasProgress   bool
	progressSent  bool
	alarms        []businessAlarm
	alarmsDropped bool

	// sendMu keeps an interim send and the final callback from carrying the same lines or alarms.
	sendMu sync.Mutex
	// The final callback is built (or an engine said 409): no interim callback after it.
	over bool
}

func newJob(req dispatchRequest, warn func(string, ...any)) *job {
	ctx, cancel := context.WithCancel(context.Background())
	return &job{req: req, key: req.key(), ctx: ctx, cancel: cancel, state: "QUEUED", warn: warn}
}

// abort cancels the handler's context; the first reason stays. False when already aborted.
func (j *job) abort(reason string) bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.abortReason != "" {
		return false
	}
	j.abortReason = reason
	j.cancel()
	return true
}

func (j *job) reason() string {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.abortReason
}

func (j *job) log(level, message string) {
	if len(message) > maxLogLineBytes {
		message = message[:maxLogLineBytes] + "…"
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	j.logSeq++
	j.logs = append(j.logs, logLine{At: nowMs(), Level: level, Message: message, seq: j.logSeq})
	if over := len(j.logs) - maxPendingLogLines; over > 0 {
		j.logs = append(j.logs[:0], j.logs[over:]...)
		j.dropped += over
	}
}

func (j *job) setProgress(percent float64) {
	if percent < 0 {
		percent = 0
	} else if percent > 100 {
		percent = 100
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.hasProgress || j.progress != percent {
		j.progress, j.hasProgress, j.progressSent = percent, true, false
	}
}

// logFields names the run's trace on the SDK's lines about it (runFields).
func (j *job) logFields() string { return runFields(j.req.RunID, j.req.Attempt, j.req.Traceparent) }

func (j *job) alarm(severity Severity, message string, data any) {
	if severity != SeverityInfo && severity != SeverityCritical {
		severity = SeverityWarning
	}
	a := businessAlarm{Severity: severity, Message: message, At: nowMs(), ID: uuid()}
	if data != nil {
		raw, err := json.Marshal(data)
		if err != nil {
			j.warn("run %s: alarm data is not JSON (%v), sent without it%s", j.key, err, j.logFields())
		} else {
			a.Data = raw
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if len(j.alarms) >= maxAlarmsPerRun {
		if !j.alarmsDropped {
			j.alarmsDropped = true
			j.warn("run %s: more than %d business alarms waiting, the rest are dropped%s", j.key, maxAlarmsPerRun, j.logFields())
		}
		return
	}
	j.alarms = append(j.alarms, a)
}

// report is what the handler has said and no engine has taken yet.
type report struct {
	logs     []logLine
	lastSeq  int64 // the newest line it holds: lines up to it go once taken
	alarms   []businessAlarm
	progress *float64
}

func (r report) empty() bool { return len(r.logs) == 0 && len(r.alarms) == 0 && r.progress == nil }

// pending is the not-yet-taken report: the newest lines within the tail's byte bound (after a
// marker when some were dropped), the alarms, the progress if it changed. Call with sendMu held.
func (j *job) pending() report {
	j.mu.Lock()
	defer j.mu.Unlock()
	r := report{lastSeq: j.logSeq, alarms: append([]businessAlarm(nil), j.alarms...)}
	dropped, bytes, first := j.dropped, 0, len(j.logs)
	for first > 0 && bytes+len(j.logs[first-1].Message)+32 <= maxLogTailBytes {
		first--
		bytes += len(j.logs[first].Message) + 32
	}
	dropped += first
	if dropped > 0 {
		r.logs = append(r.logs, logLine{At: nowMs(), Level: "warn", Message: fmt.Sprintf("[%d log line(s) dropped: more than the log tail holds]", dropped)})
	}
	r.logs = append(r.logs, j.logs[first:]...)
	if j.hasProgress && !j.progressSent {
		p := j.progress
		r.progress = &p
	}
	return r
}

// taken: an engine took r; what came after it stays pending.
func (j *job) taken(r report) {
	j.mu.Lock()
	defer j.mu.Unlock()
	kept := j.logs[:0]
	for _, l := range j.logs {
		if l.seq > r.lastSeq {
			kept = append(kept, l)
		}
	}
	j.logs = kept
	j.dropped = 0
	j.alarms = append(j.alarms[:0], j.alarms[len(r.alarms):]...)
	if r.progress != nil && j.progress == *r.progress {
		j.progressSent = true
	}
}

func uuid() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

func nowMs() int64 { return time.Now().UnixMilli() }
