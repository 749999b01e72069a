package baton

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
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
		body, _ := json.Marshal(map[string]any{"runId": runID, "attempt": 1, "tenantId": "acme", "taskId": 1, "taskName": "t", "handler": "traced",
			"params": nil, "scheduledAt": nowMs(), "deadline": nowMs() + 60_000, "callbackUrls": []string{srv.URL}, "traceparent": sent})
		req, _ := http.NewRequest("POST", e.URL()+"/baton/runs", bytes.NewReader(body))
		for k, v := range Sign("secret", "acme", "POST", "/baton/runs", body, nowMs()) {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil || res.StatusCode != 202 {
			t.Fatalf("dispatch of run %d: %v %v", runID, err, res)
		}
		res.Body.Close()
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
