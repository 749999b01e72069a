package baton

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// signed sends a signed request to the executor and decodes its JSON answer into out (unless nil).
func signed(t *testing.T, e *Executor, method, path string, body, out any) int {
	t.Helper()
	var raw []byte
	if body != nil {
		raw, _ = json.Marshal(body)
	}
	req, _ := http.NewRequest(method, e.URL()+path, bytes.NewReader(raw))
	for k, v := range Sign("secret", "acme", method, path, raw, nowMs()) {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if out != nil {
		if err := json.NewDecoder(res.Body).Decode(out); err != nil {
			t.Fatalf("%s %s: %v", method, path, err)
		}
	}
	return res.StatusCode
}

// dispatchOf is a run of handler sent startInMs ahead of its instant (nil: without the field).
func dispatchOf(engineURL string, runID int64, handler string, startInMs any) map[string]any {
	run := map[string]any{"runId": runID, "attempt": 1, "tenantId": "acme", "taskId": 1, "taskName": "t", "handler": handler,
		"params": nil, "scheduledAt": nowMs(), "deadline": nowMs() + 120_000, "callbackUrls": []string{engineURL}}
	if startInMs != nil {
		run["startInMs"] = startInMs
	}
	return run
}

func (f *fakeEngine) final(runID int64) (callback, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, cb := range f.received {
		if cb.RunID == runID {
			return cb, true
		}
	}
	return callback{}, false
}

// startStamping starts an executor whose handler "stamp" notes when each run started.
func startStamping(t *testing.T, o Options) (*Executor, *fakeEngine, string, func(runID int64) int64) {
	engine := &fakeEngine{finals: map[string]string{}}
	srv := httptest.NewServer(engine)
	t.Cleanup(srv.Close) // after the executor's shutdown: its last callbacks reach the engine
	var mu sync.Mutex
	started := map[int64]int64{}
	e := startExecutor(t, srv.URL, o, Handle("stamp", func(ctx context.Context, run *Run) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		started[run.RunID] = nowMs()
		return nil, nil
	}))
	return e, engine, srv.URL, func(runID int64) int64 { mu.Lock(); defer mu.Unlock(); return started[runID] }
}

// A timer may fire a little before the wall clock reaches its instant: its runs are not taken then.
func TestSentAheadTakesNoRunBeforeItsInstant(t *testing.T) {
	s := newSentAhead()
	fired := make(chan int64, 1)
	j, at := &job{}, nowMs()+200
	s.add(j, at, func(at int64) { fired <- at })
	if jobs := s.due(at); jobs != nil || s.count != 1 {
		t.Fatalf("took %d run(s) 200 ms before their instant", len(jobs))
	}
	var jobs []*job
	for jobs == nil {
		jobs = s.due(<-fired)
	}
	if nowMs() < at || len(jobs) != 1 || jobs[0] != j || s.count != 0 || len(s.timers) != 0 {
		t.Errorf("at %d (instant %d): took %d run(s), %d still counted, %d timer(s) left", nowMs(), at, len(jobs), s.count, len(s.timers))
	}
}

// A run sent ahead is answered 202 at once, is QUEUED until its instant and starts then, never
// before; a run of the same batch due now starts at once.
func TestARunSentAheadStartsAtItsInstant(t *testing.T) {
	e, engine, engineURL, startedAt := startStamping(t, Options{Concurrency: 2})
	sentAt := nowMs()
	var batch struct{ Results []batchResult }
	signed(t, e, "POST", "/baton/runs/batch", map[string]any{"runs": []any{dispatchOf(engineURL, 1, "stamp", 300), dispatchOf(engineURL, 2, "stamp", 0)}}, &batch)
	if len(batch.Results) != 2 || batch.Results[0].Status != 202 || batch.Results[1].Status != 202 {
		t.Fatalf("batch answered %+v", batch.Results)
	}
	if answeredIn := nowMs() - sentAt; answeredIn > 200 {
		t.Errorf("answered in %d ms", answeredIn)
	}
	var status struct{ Attempts []attemptStatus }
	signed(t, e, "GET", "/baton/runs/1", nil, &status)
	if len(status.Attempts) != 1 || status.Attempts[0].State != "QUEUED" {
		t.Errorf("before its instant the run is %+v, want QUEUED", status.Attempts)
	}
	waitFor(t, "both callbacks", func() bool { _, a := engine.final(1); _, b := engine.final(2); return a && b })
	ahead, _ := engine.final(1)
	if ahead.Outcome != "SUCCEEDED" || ahead.StartedAt < sentAt+300 || startedAt(1) < sentAt+300 {
		t.Errorf("sent at %d with startInMs 300: %s, started at %d (handler: %d)", sentAt, ahead.Outcome, ahead.StartedAt, startedAt(1))
	}
	if now := startedAt(2); now >= sentAt+300 {
		t.Errorf("the run due now started %d ms after it was sent", now-sentAt)
	}
}

// Until its instant a run sent ahead holds a queue place: counted as queued in the heartbeat
// and the credit, and taken only while running + queued < concurrency + queueLimit. A run due
// now still takes a free worker.
func TestRunsSentAheadTakeQueuePlaces(t *testing.T) {
	engine := &fakeEngine{finals: map[string]string{}}
	srv := httptest.NewServer(engine)
	t.Cleanup(srv.Close)
	e := startExecutor(t, srv.URL, Options{Concurrency: 1, QueueLimit: 1}, Handle("gate", func(ctx context.Context, run *Run) (any, error) {
		<-ctx.Done()
		return nil, nil
	}))
	for runID, credit := range []int{1, 0} {
		var ack dispatchAck
		if status := signed(t, e, "POST", "/baton/runs", dispatchOf(srv.URL, int64(runID+1), "gate", 60_000), &ack); status != 202 || ack.Credit != credit {
			t.Fatalf("run %d sent ahead: %d, credit %d, want 202 and credit %d", runID+1, status, ack.Credit, credit)
		}
	}
	if hb := e.heartbeatBody(); hb.Queued != 2 || hb.InFlight != 2 || len(hb.Active) != 2 {
		t.Errorf("heartbeat says queued %d, inFlight %d, %d active; want 2, 2, 2", hb.Queued, hb.InFlight, len(hb.Active))
	}
	var refused refusal
	if status := signed(t, e, "POST", "/baton/runs", dispatchOf(srv.URL, 3, "gate", 60_000), &refused); status != 429 || refused.Reason != "BUSY" {
		t.Errorf("a third run sent ahead: %d %s, want 429 BUSY", status, refused.Reason)
	}
	if status := signed(t, e, "POST", "/baton/runs", dispatchOf(srv.URL, 4, "gate", nil), nil); status != 202 {
		t.Fatalf("a run due now with a worker free: %d, want 202", status)
	}
	waitFor(t, "the run due now running", func() bool { e.mu.Lock(); defer e.mu.Unlock(); return e.running == 1 })
	if status := signed(t, e, "POST", "/baton/runs", dispatchOf(srv.URL, 5, "gate", nil), &refused); status != 429 {
		t.Errorf("a run due now with the worker busy and the queue places taken: %d, want 429", status)
	}
}

// An abort before its instant drops a run sent ahead: ABORTED with the abort's reason, never started.
func TestAnAbortDropsARunSentAheadBeforeItsInstant(t *testing.T) {
	e, engine, engineURL, startedAt := startStamping(t, Options{Concurrency: 1})
	if status := signed(t, e, "POST", "/baton/runs", dispatchOf(engineURL, 1, "stamp", 200), nil); status != 202 {
		t.Fatalf("dispatch: %d", status)
	}
	var ack abortAck
	if status := signed(t, e, "POST", "/baton/runs/1/abort", map[string]any{"runId": 1, "attempt": 1, "reason": "CANCELLED"}, &ack); status != 202 || ack.State != "QUEUED" {
		t.Fatalf("abort: %d %+v, want 202 of a QUEUED run", status, ack)
	}
	waitFor(t, "the callback", func() bool { _, ok := engine.final(1); return ok })
	cb, _ := engine.final(1)
	if cb.Outcome != "ABORTED" || cb.AbortReason != "CANCELLED" || cb.StartedAt != 0 {
		t.Errorf("callback %s %s, startedAt %d; want ABORTED CANCELLED, never started", cb.Outcome, cb.AbortReason, cb.StartedAt)
	}
	if hb := e.heartbeatBody(); hb.Queued != 0 || len(e.ahead.timers) != 0 {
		t.Errorf("after the abort: %d queued, %d timer(s)", hb.Queued, len(e.ahead.timers))
	}
	time.Sleep(400 * time.Millisecond)
	if startedAt(1) != 0 {
		t.Errorf("the handler ran at its instant after all")
	}
}

// startInMs is a whole number of ms from 0 to 60000; anything else is refused naming it.
func TestABadStartInMsIsRefusedNamingIt(t *testing.T) {
	for _, good := range []int64{0, 1, 60_000} {
		raw, _ := json.Marshal(dispatchOf("http://engine", 1, "stamp", good))
		if req, bad := parseDispatch(raw); bad != nil || req.StartInMs != good {
			t.Errorf("startInMs %d: %+v, read as %d", good, bad, req.StartInMs)
		}
	}
	e, _, engineURL, _ := startStamping(t, Options{})
	for _, wrong := range []any{-1, 1.5, "10", 60_001, json.RawMessage("null")} {
		var refused refusal
		if status := signed(t, e, "POST", "/baton/runs", dispatchOf(engineURL, 1, "stamp", wrong), &refused); status != 400 || refused.Reason != "BAD_REQUEST" || refused.Field != "startInMs" {
			t.Errorf("startInMs %v: %d %+v, want 400 BAD_REQUEST naming startInMs", wrong, status, refused)
		}
	}
	var batch struct {
		Results []struct {
			Status int
			Body   refusal
		}
	}
	signed(t, e, "POST", "/baton/runs/batch", map[string]any{"runs": []any{dispatchOf(engineURL, 1, "stamp", -5)}}, &batch)
	if len(batch.Results) != 1 || batch.Results[0].Status != 400 || batch.Results[0].Body.Field != "runs[0].startInMs" {
		t.Errorf("in a batch: %+v, want 400 naming runs[0].startInMs", batch.Results)
	}
}

// A graceful stop keeps a run sent ahead whose instant comes within the grace and starts it
// then; one due after the grace ends ABORTED (SHUTDOWN) without starting.
func TestAGracefulStopKeepsARunSentAheadDueWithinTheGrace(t *testing.T) {
	e, engine, engineURL, _ := startStamping(t, Options{Concurrency: 1, QueueLimit: 1, ShutdownGrace: 2 * time.Second})
	sentAt := nowMs()
	for i, startInMs := range []int{300, 5000} {
		if status := signed(t, e, "POST", "/baton/runs", dispatchOf(engineURL, int64(i+1), "stamp", startInMs), nil); status != 202 {
			t.Fatalf("run %d: %d", i+1, status)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	soon, _ := engine.final(1)
	late, _ := engine.final(2)
	if soon.Outcome != "SUCCEEDED" || soon.StartedAt < sentAt+300 {
		t.Errorf("the run due within the grace, sent at %d: %s %s, startedAt %d; want SUCCEEDED at its instant", sentAt, soon.Outcome, soon.Error, soon.StartedAt)
	}
	if late.Outcome != "ABORTED" || late.AbortReason != "SHUTDOWN" || late.StartedAt != 0 {
		t.Errorf("the run due after the grace: %s %s, startedAt %d; want ABORTED SHUTDOWN, never started", late.Outcome, late.AbortReason, late.StartedAt)
	}
}

// A run kept for its instant that finds no worker free before the grace ends is ABORTED (SHUTDOWN)
// like the other queued runs, not started once the running handler gives its worker up.
func TestAKeptRunThatFindsNoWorkerWithinTheGraceEndsAborted(t *testing.T) {
	engine := &fakeEngine{finals: map[string]string{}}
	srv := httptest.NewServer(engine)
	t.Cleanup(srv.Close)
	e := startExecutor(t, srv.URL, Options{Concurrency: 1, QueueLimit: 1, ShutdownGrace: 600 * time.Millisecond}, Handle("gate", func(ctx context.Context, run *Run) (any, error) {
		<-ctx.Done()
		return nil, nil
	}))
	for i, startInMs := range []any{nil, 200} {
		if status := signed(t, e, "POST", "/baton/runs", dispatchOf(srv.URL, int64(i+1), "gate", startInMs), nil); status != 202 {
			t.Fatalf("run %d: %d", i+1, status)
		}
	}
	waitFor(t, "the run due now running", func() bool { e.mu.Lock(); defer e.mu.Unlock(); return e.running == 1 })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := e.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	running, _ := engine.final(1)
	kept, _ := engine.final(2)
	if running.Outcome != "ABORTED" || running.AbortReason != "SHUTDOWN" || running.StartedAt == 0 {
		t.Errorf("the running run: %s %s, startedAt %d; want ABORTED SHUTDOWN after it started", running.Outcome, running.AbortReason, running.StartedAt)
	}
	if kept.Outcome != "ABORTED" || kept.AbortReason != "SHUTDOWN" || kept.StartedAt != 0 {
		t.Errorf("the kept run: %s %s, startedAt %d; want ABORTED SHUTDOWN, never started", kept.Outcome, kept.AbortReason, kept.StartedAt)
	}
}

// A run sent ahead counts its wait from its request's arrival, not from when its body was read
// and judged: a batch whose body comes 400 ms after its headers starts its runs startInMs after
// the headers came, never earlier.
func TestARunSentAheadCountsFromItsRequestsArrival(t *testing.T) {
	e, engine, engineURL, startedAt := startStamping(t, Options{Concurrency: 2})
	const startInMs, bodyLateMs = 600, 400
	body, _ := json.Marshal(map[string]any{"runs": []any{dispatchOf(engineURL, 1, "stamp", startInMs), dispatchOf(engineURL, 2, "stamp", startInMs)}})
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	head := fmt.Sprintf("POST /baton/runs/batch HTTP/1.1\r\nHost: executor\r\nContent-Type: application/json\r\nContent-Length: %d\r\n", len(body))
	for k, v := range Sign("secret", "acme", "POST", "/baton/runs/batch", body, nowMs()) {
		head += k + ": " + v + "\r\n"
	}
	sentAt := nowMs()
	if _, err := conn.Write([]byte(head + "\r\n")); err != nil {
		t.Fatal(err)
	}
	time.Sleep(bodyLateMs * time.Millisecond)
	bodyAt := nowMs()
	if _, err := conn.Write(body); err != nil {
		t.Fatal(err)
	}
	res, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("batch: %v %v", err, res)
	}
	res.Body.Close()
	waitFor(t, "both callbacks", func() bool { _, a := engine.final(1); _, b := engine.final(2); return a && b })
	for _, runID := range []int64{1, 2} {
		started := startedAt(runID)
		if started < sentAt+startInMs {
			t.Errorf("run %d started %d ms after its request's headers were sent, before its startInMs (%d)", runID, started-sentAt, startInMs)
		}
		if started >= bodyAt+startInMs-100 {
			t.Errorf("run %d started %d ms after its body came: counted from the judging, not the arrival", runID, started-bodyAt)
		}
	}
}

// startOn starts an executor whose handler "stamp" counts its runs, on an engine set up first.
func startOn(t *testing.T, engine *fakeEngine) (*Executor, string, func() int) {
	srv := httptest.NewServer(engine)
	t.Cleanup(srv.Close)
	var mu sync.Mutex
	ran := 0
	e := startExecutor(t, srv.URL, Options{}, Handle("stamp", func(ctx context.Context, run *Run) (any, error) {
		mu.Lock()
		defer mu.Unlock()
		ran++
		return nil, nil
	}))
	waitFor(t, "an answered heartbeat", func() bool { engine.mu.Lock(); defer engine.mu.Unlock(); return engine.acked > 0 })
	return e, srv.URL, func() int { mu.Lock(); defer mu.Unlock(); return ran }
}

// Protocol 3: a run sent ahead whose instant comes more than 2 × the acked interval after the last
// answered heartbeat is let go unstarted, ABORTED NO_CONTACT; a run due now still runs.
func TestARunSentAheadIsLetGoWhenNoEngineAnsweredWithinTheLease(t *testing.T) {
	engine := &fakeEngine{finals: map[string]string{}, intervalMs: 100} // a 200 ms lease
	e, engineURL, ran := startOn(t, engine)
	engine.mu.Lock()
	engine.failHeartbeats = true // cut off from here on
	engine.mu.Unlock()
	if status := signed(t, e, "POST", "/baton/runs", dispatchOf(engineURL, 1, "stamp", 800), nil); status != 202 {
		t.Fatalf("dispatch answered %d", status)
	}
	waitFor(t, "the callback of the run sent ahead", func() bool { _, ok := engine.final(1); return ok })
	cb, _ := engine.final(1)
	if cb.Outcome != "ABORTED" || cb.AbortReason != "NO_CONTACT" || cb.StartedAt != 0 || !strings.Contains(cb.Error, "no engine has answered a heartbeat for") || ran() != 0 {
		t.Errorf("got %s %s (started at %d): %q; handler ran %d time(s)", cb.Outcome, cb.AbortReason, cb.StartedAt, cb.Error, ran())
	}
	signed(t, e, "POST", "/baton/runs", dispatchOf(engineURL, 2, "stamp", nil), nil)
	waitFor(t, "the run due now", func() bool { _, ok := engine.final(2); return ok })
	if now, _ := engine.final(2); now.Outcome != "SUCCEEDED" {
		t.Errorf("a run due now, out of contact: %s", now.Outcome)
	}
}

// Protocol 3: when an ack's handBacks changes, every run held for its instant is let go at once
// (the engines dispatched them again); the first ack's only sets it.
func TestAChangedHandBacksLetsGoOfTheRunsHeld(t *testing.T) {
	seven := int64(7)
	engine := &fakeEngine{finals: map[string]string{}, intervalMs: 20, handBacks: &seven}
	e, engineURL, ran := startOn(t, engine)
	signed(t, e, "POST", "/baton/runs", dispatchOf(engineURL, 1, "stamp", 60_000), nil)
	engine.mu.Lock()
	acked := engine.acked
	engine.mu.Unlock()
	waitFor(t, "two more answered heartbeats", func() bool { engine.mu.Lock(); defer engine.mu.Unlock(); return engine.acked > acked+1 })
	if _, ok := engine.final(1); ok {
		t.Fatal("let go with handBacks unchanged")
	}
	eight := int64(8)
	engine.mu.Lock()
	engine.handBacks = &eight
	engine.mu.Unlock()
	waitFor(t, "the run held let go", func() bool { _, ok := engine.final(1); return ok })
	if cb, _ := engine.final(1); cb.Outcome != "ABORTED" || cb.AbortReason != "NO_CONTACT" || !strings.Contains(cb.Error, "handed back") || ran() != 0 {
		t.Errorf("got %s %s: %q; handler ran %d time(s)", cb.Outcome, cb.AbortReason, cb.Error, ran())
	}
	e.mu.Lock()
	queued := e.queued()
	e.mu.Unlock()
	if queued != 0 {
		t.Errorf("%d run(s) still queued", queued)
	}
}
