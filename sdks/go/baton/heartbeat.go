package baton

import (
	"context"
	"encoding/json"
	"math"
	"strings"
	"time"
)

type runRef struct {
	RunID   int64 `json:"runId"`
	Attempt int64 `json:"attempt"`
}

// heartbeatBody is an ExecutorHeartbeat: registration and liveness.
type heartbeatBody struct {
	TenantID        string                     `json:"tenantId"`
	App             string                     `json:"app"`
	URL             string                     `json:"url"`
	Capacity        int                        `json:"capacity"`
	InFlight        int                        `json:"inFlight"`
	Handlers        []string                   `json:"handlers"`
	HandlerSchemas  map[string]json.RawMessage `json:"handlerSchemas,omitempty"`
	ProtocolVersion int                        `json:"protocolVersion"`
	StartedAt       int64                      `json:"startedAt"`
	Queued          int                        `json:"queued"`
	QueueLimit      int                        `json:"queueLimit"`
	Active          []runRef                   `json:"active,omitempty"`
	Spooled         int                        `json:"spooled"`
	Draining        bool                       `json:"draining"`
}

func (e *Executor) heartbeatBody() heartbeatBody {
	e.mu.Lock()
	defer e.mu.Unlock()
	hb := heartbeatBody{
		TenantID: e.opts.Tenant, App: e.opts.App, URL: e.url, Capacity: e.opts.Concurrency,
		InFlight: e.running + e.queued(), Handlers: e.names, HandlerSchemas: e.schemas, ProtocolVersion: ProtocolVersion,
		StartedAt: e.startedAt, Queued: e.queued(), QueueLimit: e.opts.QueueLimit, Spooled: len(e.pending), Draining: e.draining,
	}
	// Omitted, not empty, past the bound; an empty list says "nothing in flight" and is sent.
	if len(e.jobs) <= maxHeartbeatActive {
		hb.Active = make([]runRef, 0, len(e.jobs))
		for _, j := range e.jobs {
			hb.Active = append(hb.Active, runRef{j.req.RunID, j.req.Attempt})
		}
	}
	return hb
}

// heartbeatTry bounds one engine's try of a heartbeat, well under the engines'
// BATON_EXECUTOR_DEAD_AFTER_MS (10 s, the default RequestTimeout too): an engine that hangs
// (black-holed, frozen) costs one short try, and the next engine is tried, instead of keeping
// the executor silent until it is marked DOWN.
const heartbeatTry = 2 * time.Second

// beat sends one heartbeat to the first engine that takes it, and follows its ack's intervalMs.
func (e *Executor) beat() bool {
	e.beatMu.Lock()
	defer e.beatMu.Unlock()
	if e.lastWord {
		return false
	}
	return e.beatLocked()
}

// lastBeat sends the final heartbeat (draining, nothing in flight) after any beat on the wire,
// and silences the periodic loop for good.
func (e *Executor) lastBeat() {
	e.beatMu.Lock()
	defer e.beatMu.Unlock()
	if !e.lastWord {
		e.lastWord = true
		e.beatLocked()
	}
}

func (e *Executor) beatLocked() bool {
	var failures []string
	sentAt := time.Now() // the sent-ahead lease counts from the round's start, before any engine was tried
	for _, url := range e.order(e.opts.EngineURLs) {
		status, answer := e.heartbeatTo(url)
		if status >= 200 && status < 300 {
			var ack struct {
				ExecutorID *int64   `json:"executorId"`
				IntervalMs *float64 `json:"intervalMs"`
				HandBacks  *int64   `json:"handBacks"`
			}
			if json.Unmarshal(answer, &ack) != nil {
				return true
			}
			e.mu.Lock()
			if ack.IntervalMs != nil {
				ms := *ack.IntervalMs
				if ms < 10 {
					ms = 10
				} else if ms > 600_000 {
					ms = 600_000
				}
				e.heartbeat = time.Duration(ms) * time.Millisecond
			}
			if ack.ExecutorID != nil {
				e.executorID = ack.ExecutorID
			}
			var handedBack []*job
			if e.contact.heard(sentAt, e.heartbeat, ack.HandBacks) {
				handedBack = e.ahead.takeAfter(math.MinInt64)
			}
			e.mu.Unlock()
			e.letGo(handedBack, "the engines handed back the runs this executor held while it was out of contact")
			return true
		}
		failures = append(failures, url+": "+describe(status, answer))
	}
	e.warn("heartbeat failed on every engine URL (%s)", strings.Join(failures, "; "))
	return false
}

// heartbeatTo sends one heartbeat to one engine, within heartbeatTry (or RequestTimeout if shorter).
func (e *Executor) heartbeatTo(url string) (int, []byte) {
	body, err := compactJSON(e.heartbeatBody())
	if err != nil {
		return 0, []byte(err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), heartbeatTry)
	defer cancel()
	a := e.postAnswerWithin(ctx, url, "/baton/executors/heartbeat", body)
	return a.status, a.body
}

func (e *Executor) heartbeatLoop() {
	for {
		e.beat()
		e.mu.Lock()
		wait := e.heartbeat
		e.mu.Unlock()
		select {
		case <-e.stopped:
			return
		case <-time.After(wait):
		}
	}
}
