package baton

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// An engine sends the time left until the deadline (deadlineInMs): the executor counts it from
// the request's arrival on its own clock. Here its clock is a minute ahead of the engine's, as
// `deadline` says: judged by it, the run would end before it started.
func TestTheDeadlineCountsFromTheArrival(t *testing.T) {
	engine := &fakeEngine{finals: map[string]string{}}
	srv := httptest.NewServer(engine)
	t.Cleanup(srv.Close)
	var mu sync.Mutex
	var seen int64
	e := startExecutor(t, srv.URL, Options{}, Handle("wait", func(ctx context.Context, run *Run) (any, error) {
		mu.Lock()
		seen = run.Deadline.UnixMilli()
		mu.Unlock()
		<-ctx.Done()
		return nil, ctx.Err()
	}))
	sentAt := nowMs()
	ahead := dispatchOf(srv.URL, 1, "wait", nil)
	ahead["deadline"], ahead["deadlineInMs"] = sentAt-60_000+300, 300
	if status := signed(t, e, "POST", "/baton/runs", ahead, nil); status != 202 {
		t.Fatalf("answered %d", status)
	}
	waitFor(t, "its final callback", func() bool { _, ok := engine.final(1); return ok })
	cb, _ := engine.final(1)
	mu.Lock()
	defer mu.Unlock()
	if cb.Outcome != "ABORTED" || cb.AbortReason != "DEADLINE" || cb.StartedAt == 0 || cb.FinishedAt < sentAt+300 || strings.Contains(cb.Error, "before") {
		t.Errorf("sent at %d with deadlineInMs 300: %s %s %q, started %d, finished %d", sentAt, cb.Outcome, cb.AbortReason, cb.Error, cb.StartedAt, cb.FinishedAt)
	}
	if seen < sentAt+300 || seen > cb.FinishedAt {
		t.Errorf("run.Deadline %d: not the arrival + 300 ms on this clock (sent at %d)", seen, sentAt)
	}
}

// Without deadlineInMs (an older engine) the deadline is `deadline`; with it, the arrival + it
// rounded up to the ms.
func TestTheLocalDeadline(t *testing.T) {
	for _, c := range []struct {
		deadlineInMs any
		want         int64
	}{{nil, 5_000}, {0, 1_000}, {1.5, 1_002}, {300, 1_300}} {
		run := dispatchOf("http://engine", 1, "stamp", nil)
		run["deadline"] = 5_000
		if c.deadlineInMs != nil {
			run["deadlineInMs"] = c.deadlineInMs
		}
		raw, _ := json.Marshal(run)
		req, bad := parseDispatch(raw)
		if got := req.localDeadline(1_000); bad != nil || got != c.want {
			t.Errorf("deadlineInMs %v arrived at 1000: %d (%+v), want %d", c.deadlineInMs, got, bad, c.want)
		}
	}
}

// deadlineInMs is a finite number >= 0; anything else is refused naming it.
func TestABadDeadlineInMsIsRefusedNamingIt(t *testing.T) {
	for _, wrong := range []string{"-1", `"10"`, "true", "null", "1e999"} {
		raw, _ := json.Marshal(dispatchOf("http://engine", 1, "stamp", nil))
		raw = []byte(strings.TrimSuffix(string(raw), "}") + `,"deadlineInMs":` + wrong + "}")
		if _, bad := parseDispatch(raw); bad == nil || bad.Field != "deadlineInMs" || !strings.HasPrefix(bad.Message, "deadlineInMs: must be a finite number >= 0") {
			t.Errorf("deadlineInMs %s: %+v, want a refusal naming deadlineInMs", wrong, bad)
		}
	}
}
