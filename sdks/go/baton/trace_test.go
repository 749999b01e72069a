package baton

import (
	"bytes"
	"context"
	"encoding/json"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// A run's W3C traceparent reaches its handler (run.Traceparent and TraceparentFrom(ctx)) and goes
// back in its final callback; a malformed one is dropped, and the run still runs.
func TestTheTraceparentReachesTheHandlerAndTheCallback(t *testing.T) {
	engine := &fakeEngine{finals: map[string]string{}}
	srv := httptest.NewServer(engine)
	t.Cleanup(srv.Close)
	seen := make(chan [2]string, 2)
	e := startExecutor(t, srv.URL, Options{}, Handle("traced", func(ctx context.Context, run *Run) (any, error) {
		seen <- [2]string{run.Traceparent, TraceparentFrom(ctx)}
		return nil, nil
	}))
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	for runID, sent := range map[int64]string{1: tp, 2: "00-not-a-trace-01"} {
		dispatchTraced(t, e, srv.URL, runID, 1, "traced", sent)
		got := <-seen
		want := map[int64]string{1: tp, 2: ""}[runID]
		if got[0] != want || got[1] != want {
			t.Errorf("run %d: handler saw traceparent %q / ctx %q, want %q", runID, got[0], got[1], want)
		}
	}
	waitFor(t, "2 callbacks", func() bool { return engine.count() == 2 })
	engine.mu.Lock()
	defer engine.mu.Unlock()
	for _, cb := range engine.received {
		want := map[int64]string{1: tp, 2: ""}[cb.RunID]
		if cb.Traceparent != want {
			t.Errorf("run %d: callback traceparent %q, want %q", cb.RunID, cb.Traceparent, want)
		}
	}
}

// The SDK's own lines about a traced run name its runId, attempt, trace_id and span_id (the Node
// SDK's field names, as key=value pairs); an untraced run's lines name no trace.
func TestTheSDKsLinesAboutARunNameItsTrace(t *testing.T) {
	engine := &fakeEngine{finals: map[string]string{}}
	srv := httptest.NewServer(engine)
	t.Cleanup(srv.Close)
	var lines lockedBuffer
	e := startExecutor(t, srv.URL, Options{Logger: log.New(&lines, "", 0)}, Handle("alarming", func(ctx context.Context, run *Run) (any, error) {
		run.Alarm(SeverityWarning, "odd", make(chan int)) // not JSON: the SDK says so on its log
		return nil, nil
	}))
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00"
	for runID, sent := range map[int64]string{1: tp, 2: ""} {
		dispatchTraced(t, e, srv.URL, runID, 3, "alarming", sent)
	}
	waitFor(t, "2 callbacks", func() bool { return engine.count() == 2 })
	got := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(lines.String()), "\n") {
		got[strings.SplitN(line, ":", 2)[0]] = line
	}
	want := map[string]string{
		"run 1": "run 1:3: alarm data is not JSON (json: unsupported type: chan int), sent without it runId=1 attempt=3 trace_id=4bf92f3577b34da6a3ce929d0e0e4736 span_id=00f067aa0ba902b7",
		"run 2": "run 2:3: alarm data is not JSON (json: unsupported type: chan int), sent without it",
	}
	if len(got) != 2 || got["run 1"] != want["run 1"] || got["run 2"] != want["run 2"] {
		t.Errorf("log lines:\n%s\nwant:\n%s\n%s", lines.String(), want["run 1"], want["run 2"])
	}
}

// dispatchTraced sends e one run of handler (202 expected) whose callbacks go to engineURL, with
// traceparent as its trace context ("": none).
func dispatchTraced(t *testing.T, e *Executor, engineURL string, runID, attempt int64, handler, traceparent string) {
	t.Helper()
	run := map[string]any{"runId": runID, "attempt": attempt, "tenantId": "acme", "taskId": 1, "taskName": "t", "handler": handler,
		"params": nil, "scheduledAt": nowMs(), "deadline": nowMs() + 60_000, "callbackUrls": []string{engineURL}}
	if traceparent != "" {
		run["traceparent"] = traceparent
	}
	body, _ := json.Marshal(run)
	req, _ := http.NewRequest("POST", e.URL()+"/baton/runs", bytes.NewReader(body))
	for k, v := range Sign("secret", "acme", "POST", "/baton/runs", body, nowMs()) {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 202 {
		t.Fatalf("dispatch of run %d: %v %v", runID, err, res)
	}
	res.Body.Close()
}

// lockedBuffer is a log destination written by the SDK's goroutines and read by the test.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
