package baton

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// callback is a RunCallback: the end of an attempt (Outcome set) or an interim report.
type callback struct {
	RunID       int64           `json:"runId"`
	Attempt     int64           `json:"attempt"`
	TenantID    string          `json:"tenantId"`
	ExecutorID  *int64          `json:"executorId,omitempty"`
	Outcome     string          `json:"outcome,omitempty"`
	Result      json.RawMessage `json:"result,omitempty"`
	Error       string          `json:"error,omitempty"`
	StartedAt   int64           `json:"startedAt,omitempty"`
	FinishedAt  int64           `json:"finishedAt,omitempty"`
	Progress    *float64        `json:"progress,omitempty"`
	Logs        []logLine       `json:"logs,omitempty"`
	Alarms      []businessAlarm `json:"alarms,omitempty"`
	AbortReason string          `json:"abortReason,omitempty"`
	Retryable   *bool           `json:"retryable,omitempty"`
	Credit      *int            `json:"credit,omitempty"`
	CreditSeq   int64           `json:"creditSeq,omitempty"`
	// The run's trace context, so the engine's outcome span joins the run's trace.
	Traceparent string `json:"traceparent,omitempty"`
	// The dispatch's callbackUrls, tried before the configured engines (spooled with it).
	URLs []string `json:"callbackUrls,omitempty"`
}

// wire is the callback as sent (without the executor's own bookkeeping).
func (cb *callback) wire() callback {
	c := *cb
	c.URLs = nil
	return c
}

// post sends a signed request to one engine: (status, body); status 0 when no HTTP answer came.
func (e *Executor) post(base, path string, payload any) (int, []byte) {
	body, err := compactJSON(payload)
	if err != nil {
		return 0, []byte(err.Error())
	}
	return e.postBody(base, path, body)
}

// postBody is post with the body already serialised.
func (e *Executor) postBody(base, path string, body []byte) (int, []byte) {
	a := e.postAnswer(base, path, body)
	return a.status, a.body
}

// maxRetryAfter caps an engine's Retry-After: a wrong header must not park a callback for hours.
const maxRetryAfter = time.Minute

// retryAfterOf reads a 429's Retry-After (delay-seconds or an HTTP date); 0 when absent or unreadable.
func retryAfterOf(res *http.Response) time.Duration {
	if res.StatusCode != 429 {
		return 0
	}
	return retryAfterValue(res.Header.Get("Retry-After"))
}

// retryAfterValue reads a Retry-After header's value, capped at maxRetryAfter; 0 when absent or unreadable.
func retryAfterValue(value string) time.Duration {
	v := strings.TrimSpace(value)
	var d time.Duration
	if secs, err := strconv.Atoi(v); err == nil {
		d = time.Duration(secs) * time.Second
	} else if at, err := http.ParseTime(v); err == nil {
		d = time.Until(at)
	}
	if d < 0 {
		return 0
	}
	if d > maxRetryAfter {
		return maxRetryAfter
	}
	return d
}

// postAnswer is postBody with the whole answer: a 429's Retry-After too.
func (e *Executor) postAnswer(base, path string, body []byte) answer {
	return e.postAnswerWithin(context.Background(), base, path, body)
}

// postAnswerWithin is postAnswer given up when ctx ends (before RequestTimeout).
func (e *Executor) postAnswerWithin(ctx context.Context, base, path string, body []byte) answer {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, bytes.NewReader(body))
	if err != nil {
		return answer{0, []byte(err.Error()), 0}
	}
	for k, v := range Sign(e.opts.Secret, e.opts.Tenant, http.MethodPost, path, body, nowMs()) {
		req.Header.Set(k, v)
	}
	req.Header.Set("Content-Type", "application/json")
	res, err := e.client.Do(req)
	if err != nil {
		e.mu.Lock()
		if e.lastGood == base {
			e.lastGood = ""
		}
		e.mu.Unlock()
		return answer{0, []byte(err.Error()), 0}
	}
	defer res.Body.Close()
	text, _ := io.ReadAll(io.LimitReader(res.Body, 1<<20))
	if res.StatusCode < 500 && res.StatusCode != 429 {
		e.mu.Lock()
		e.lastGood = base
		delete(e.asideUntil, base)
		e.mu.Unlock()
	}
	return answer{res.StatusCode, text, retryAfterOf(res)}
}

// order: the URLs without duplicates, the engine that answered last first, engines set aside
// lately (setAside) last.
func (e *Executor) order(lists ...[]string) []string {
	seen := map[string]bool{}
	var out []string
	for _, list := range lists {
		for _, u := range list {
			if u = strings.TrimRight(u, "/"); !seen[u] {
				seen[u] = true
				out = append(out, u)
			}
		}
	}
	e.mu.Lock()
	last := e.lastGood
	now := time.Now()
	aside := func(u string) bool { return now.Before(e.asideUntil[u]) }
	var first, later []string
	for _, u := range out {
		switch {
		case aside(u):
			later = append(later, u)
		case u == last:
			first = append([]string{u}, first...)
		default:
			first = append(first, u)
		}
	}
	e.mu.Unlock()
	return append(first, later...)
}

// setAsideFor: an engine that did not answer a callback within RerouteAfter is tried after the
// others for this long (again each time it hangs), as in the Node SDK.
const setAsideFor = 5 * time.Second

// setAside tries `url` after the others for setAsideFor: it did not answer in time (it may still).
func (e *Executor) setAside(url string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.asideUntil[url] = time.Now().Add(setAsideFor)
	if e.lastGood == url {
		e.lastGood = ""
	}
}

// describe is an engine's answer for a log line: status, and the code and message of its ErrorBody.
func describe(status int, body []byte) string {
	if status == 0 {
		return string(body)
	}
	var eb struct{ Code, Message string }
	if json.Unmarshal(body, &eb) == nil && eb.Code != "" {
		return fmt.Sprintf("HTTP %d %s: %s", status, eb.Code, eb.Message)
	}
	return fmt.Sprintf("HTTP %d", status)
}

// settles: the engine took the callback (2xx, or 409: it has this outcome already, or the attempt
// moved on) or refuses it for good (400, 413, 422) — no other engine needs to be asked.
func settles(a answer) bool {
	s := a.status
	return s >= 200 && s < 300 || s == 409 || s == 400 || s == 413 || s == 422
}

// round is one round of a callback over its dispatch's engines and then the configured ones
// (engineRound: the next engine also when one has not answered within RerouteAfter — any
// engine takes any callback, and one that gets a second copy answers 409).
func (e *Executor) round(urls []string, send func(url string) <-chan answer) (*engineAnswer, []engineAnswer) {
	return engineRound(e.order(urls, e.opts.EngineURLs), send, settles, e.opts.RerouteAfter, e.setAside)
}

// deliver sends a final callback until an engine takes it (2xx or 409: stale, already recorded)
// or refuses it for good (400, 413, 422), with jittered exponential backoff between rounds. A 429
// (an engine's TENANT_BUSY / TENANT_RATE_LIMITED) is retried like a 503, but not before its
// Retry-After — not even when another callback's success wakes the others: that would send the
// tenant's whole backlog into its bounds again on every success.
// CallbackConcurrency bounds the requests (callbackBatches.post), not the deliveries, so that
// what ends while requests are out joins the next batch instead of waiting for a callback's
// place and going in small batches. While runs wait in line for a worker, the callback first
// waits for them to start (startsFirst), at most mostHeldForStarts.
func (e *Executor) deliver(cb *callback) {
	key := runKey(cb.RunID, cb.Attempt)
	wire, err := compactJSON(cb.wire())
	if err != nil { // cannot happen: every field is JSON already
		e.warn("callback %s: %v%s", key, err, runFields(cb.RunID, cb.Attempt, cb.Traceparent))
		return
	}
	e.mu.Lock()
	turn := e.startsFirst.turn(!e.draining && e.line.len() > 0, &e.mu)
	e.mu.Unlock()
	<-turn
	for tries := 1; ; tries++ {
		done := make(chan struct{})
		settled, answers := e.round(cb.URLs, func(url string) <-chan answer { return e.batchesFor(url).send(wire, done) })
		close(done)
		var hold time.Duration // the longest Retry-After of this round
		status, answer, url := 0, []byte("no engine URL"), ""
		for _, a := range answers {
			if a.retryAfter > hold {
				hold = a.retryAfter
			}
			status, answer, url = a.status, a.body, a.url
		}
		if settled != nil {
			status, answer, url = settled.status, settled.body, settled.url
			if status >= 400 && status != 409 {
				e.warn("callback %s refused for good by %s (%s), dropped%s", key, url, describe(status, answer), runFields(cb.RunID, cb.Attempt, cb.Traceparent))
			}
			e.mu.Lock()
			delete(e.pending, key)
			e.changed.Broadcast()
			close(e.retryNow) // the engines answer again: retry the others now
			e.retryNow = make(chan struct{})
			e.mu.Unlock()
			if e.spool != nil {
				e.spool.done(key, e.pendingCount(), e.warn)
			}
			return
		}
		if tries == 1 || tries%10 == 0 {
			e.warn("callback %s not delivered yet (try %d: %s), retrying%s", key, tries, describe(status, answer), runFields(cb.RunID, cb.Attempt, cb.Traceparent))
		}
		exp := e.opts.RetryBase << uint(minInt(tries-1, 30))
		if exp > e.opts.RetryMax || exp <= 0 {
			exp = e.opts.RetryMax
		}
		delay := exp/2 + time.Duration(rand.Int63n(int64(exp/2)+1))
		if delay < hold {
			delay = hold
		}
		heldUntil := time.Now().Add(hold)
		e.mu.Lock()
		wake := e.retryNow
		e.mu.Unlock()
		select {
		case <-time.After(delay):
		case <-wake:
		case <-e.stopped:
			return
		}
		if left := time.Until(heldUntil); left > 0 { // woken early: still not before the engine's Retry-After
			select {
			case <-time.After(left):
			case <-e.stopped:
				return
			}
		}
	}
}

func (e *Executor) pendingCount() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return len(e.pending)
}

func minInt(a, b int) int {
	if a < b {
		return a
	}
	return b
}

// interimLoop sends, every ProgressInterval, each running run's new log lines, progress and
// alarms in an interim callback (no retry: what is not taken goes with the next one or the final).
func (e *Executor) interimLoop() {
	t := time.NewTicker(e.opts.ProgressInterval)
	defer t.Stop()
	for {
		select {
		case <-e.stopped:
			return
		case <-t.C:
		}
		e.mu.Lock()
		var running []*job
		for _, j := range e.jobs {
			if j.state == "RUNNING" {
				running = append(running, j)
			}
		}
		e.mu.Unlock()
		for _, j := range running {
			e.sendInterim(j)
		}
	}
}

func (e *Executor) sendInterim(j *job) {
	j.sendMu.Lock()
	defer j.sendMu.Unlock()
	if j.over {
		return
	}
	rep := j.pending()
	if rep.empty() {
		return
	}
	e.mu.Lock()
	cb := callback{RunID: j.req.RunID, Attempt: j.req.Attempt, TenantID: j.req.TenantID, ExecutorID: e.executorID, StartedAt: j.startedAt,
		Progress: rep.progress, Logs: rep.logs, Alarms: rep.alarms}
	e.mu.Unlock()
	body, err := compactJSON(cb)
	if err != nil {
		return
	}
	// A round, as for a final callback: the run's end waits for this send (sendMu), and must not
	// wait on a hanging engine.
	settled, _ := e.round(j.req.CallbackURLs, func(url string) <-chan answer {
		ch := make(chan answer, 1)
		go func() { ch <- e.postAnswer(url, "/baton/callbacks", body) }()
		return ch
	})
	switch {
	case settled == nil:
	case settled.status >= 200 && settled.status < 300:
		j.taken(rep)
	case settled.status == 409:
		j.over = true // the run ended or moved on there; the final callback says what it did
	}
	// 400, 413, 422: refused as it is; the lines go with the final callback
}
