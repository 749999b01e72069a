package baton

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// hangingEngine is an engine that hangs (black-holed, frozen): it accepts connections and never
// answers. It returns its URL and the number of connections it holds.
func hangingEngine(t *testing.T) (string, func() int) {
	t.Helper()
	hanging, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var held []net.Conn
	go func() {
		for {
			c, err := hanging.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			held = append(held, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		_ = hanging.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range held {
			_ = c.Close()
		}
	})
	return "http://" + hanging.Addr().String(), func() int { mu.Lock(); defer mu.Unlock(); return len(held) }
}

// An engine that hangs: the heartbeat goes on to the next engine after heartbeatTry, long
// before RequestTimeout.
func TestAHangingEngineDoesNotHoldTheHeartbeat(t *testing.T) {
	hangingURL, _ := hangingEngine(t)
	var beats atomic.Int32
	live := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/baton/executors/heartbeat" {
			beats.Add(1)
			_, _ = w.Write([]byte(`{"executorId":1,"intervalMs":60000}`))
			return
		}
		w.WriteHeader(404)
	}))
	t.Cleanup(live.Close)
	startExecutorOn(t, Options{EngineURLs: []string{hangingURL, live.URL}, RequestTimeout: time.Minute})
	waitFor(t, "a heartbeat on the engine that answers", func() bool { return beats.Load() > 0 })
}

// Final callbacks listed for a hanging engine first reach the next engine after RerouteAfter,
// while the hanging one still holds them and long before RequestTimeout (a minute): with
// CallbackConcurrency 1, the requests the hanging engine holds must not hold the only slot.
func TestFinalCallbacksGoAroundAHangingEngine(t *testing.T) {
	const n = 5
	hangingURL, held := hangingEngine(t)
	engine := &fakeEngine{finals: map[string]string{}}
	live := httptest.NewServer(engine)
	t.Cleanup(live.Close)
	e := startExecutorOn(t, Options{EngineURLs: []string{hangingURL, live.URL}, RequestTimeout: time.Minute, RerouteAfter: 100 * time.Millisecond,
		CallbackConcurrency: 1, HeartbeatInterval: time.Minute, Concurrency: n}, Handle("gate", func(ctx context.Context, run *Run) (any, error) { return nil, nil }))
	dispatchRuns(t, e, []string{hangingURL, live.URL}, n)
	// A generous deadline, still far below the minute the hanging engine's requests wait.
	for until := time.Now().Add(30 * time.Second); engine.count() < n; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(until) {
			t.Fatalf("%d of %d final callbacks reached the engine that answers", engine.count(), n)
		}
	}
	engine.mu.Lock()
	defer engine.mu.Unlock()
	for key, outcome := range engine.finals {
		if outcome != "SUCCEEDED" {
			t.Errorf("run %s: outcome %q", key, outcome)
		}
	}
	if held() == 0 {
		t.Errorf("the hanging engine was never tried: the test did not test going around it")
	}
}
