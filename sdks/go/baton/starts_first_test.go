package baton

import (
	"context"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// While runs wait in line for a worker, a final callback is held back — starting them goes
// first — for mostHeldForStarts at most; once the line is empty, held callbacks go at once.
func TestFinalCallbacksWaitWhileRunsWaitInLine(t *testing.T) {
	engine := &fakeEngine{finals: map[string]string{}, takenAt: map[int64]time.Time{}}
	srv := httptest.NewServer(engine)
	t.Cleanup(srv.Close)
	gates := map[int64]chan struct{}{1: make(chan struct{}), 2: make(chan struct{}), 3: make(chan struct{})}
	var mu sync.Mutex
	ended := map[int64]time.Time{}
	e := startExecutor(t, srv.URL, Options{Concurrency: 1, QueueLimit: 2}, Handle("gate", func(ctx context.Context, run *Run) (any, error) {
		select {
		case <-gates[run.RunID]:
		case <-ctx.Done():
		}
		mu.Lock()
		ended[run.RunID] = time.Now()
		mu.Unlock()
		return nil, nil
	}))
	for runID := int64(1); runID <= 3; runID++ {
		if status := signed(t, e, "POST", "/baton/runs", dispatchOf(srv.URL, runID, "gate", nil), nil); status != 202 {
			t.Fatalf("dispatch of run %d: %d", runID, status)
		}
	}
	waitFor(t, "run 1 running, 2 and 3 in line", func() bool { e.mu.Lock(); defer e.mu.Unlock(); return e.running == 1 && e.line.len() == 2 })
	heldFor := func(runID int64) time.Duration {
		waitFor(t, "the callback", func() bool { _, ok := engine.final(runID); return ok })
		engine.mu.Lock()
		defer engine.mu.Unlock()
		mu.Lock()
		defer mu.Unlock()
		return engine.takenAt[runID].Sub(ended[runID])
	}

	close(gates[1]) // run 2 starts, run 3 still waits in line
	if held := heldFor(1); held < mostHeldForStarts || held > mostHeldForStarts+200*time.Millisecond {
		t.Errorf("run 1's callback was taken %v after it ended, while run 3 waited in line; want it held %v", held, mostHeldForStarts)
	}
	close(gates[2]) // run 3 starts: the line is empty
	if held := heldFor(2); held > 100*time.Millisecond {
		t.Errorf("run 2's callback was taken %v after it ended, though the line emptied then", held)
	}
	close(gates[3])
	if held := heldFor(3); held > 100*time.Millisecond {
		t.Errorf("run 3's callback was taken %v after it ended, with nothing in line", held)
	}
}
