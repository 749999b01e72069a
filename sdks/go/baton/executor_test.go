package baton

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// fakeEngine records signed callbacks, single and batched, and acks heartbeats.
type fakeEngine struct {
	mu        sync.Mutex
	singles   int
	batches   []int // size of each batch request
	finals    map[string]string
	received  []callback // every final callback, in the order they came
	noBatches bool
	// Each callback request takes this long, and the most in flight at once is recorded.
	delay                 time.Duration
	inFlight, maxInFlight int
	// The next refuse429 callback requests are answered 429 with Retry-After: 1 (an engine's TENANT_BUSY).
	refuse429 int
	refusedAt []time.Time
	takenAt   map[int64]time.Time // when each run's final callback was taken
	// Heartbeats: answered 503 while failHeartbeats, else with intervalMs (0: 60000) and handBacks (nil: not sent); acked counts the answered ones.
	failHeartbeats bool
	intervalMs     int64
	handBacks      *int64
	acked          int
}

func (f *fakeEngine) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if Verify("secret", r.Header.Get(HeaderTimestamp), r.Header.Get(HeaderSignature), r.Method, r.URL.Path, body, nowMs(), DefaultMaxSkewMs) != "" {
		w.WriteHeader(401)
		return
	}
	if r.URL.Path == "/baton/callbacks" || r.URL.Path == "/baton/callbacks/batch" {
		f.mu.Lock()
		if f.inFlight++; f.inFlight > f.maxInFlight {
			f.maxInFlight = f.inFlight
		}
		f.mu.Unlock()
		time.Sleep(f.delay)
		defer func() { f.mu.Lock(); f.inFlight--; f.mu.Unlock() }()
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if (r.URL.Path == "/baton/callbacks" || r.URL.Path == "/baton/callbacks/batch") && f.refuse429 > 0 {
		f.refuse429--
		f.refusedAt = append(f.refusedAt, time.Now())
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(429)
		_, _ = w.Write([]byte(`{"statusCode":429,"code":"TENANT_BUSY","error":"Too Many Requests","message":"busy (test)","retryAfterSeconds":1}`))
		return
	}
	switch r.URL.Path {
	case "/baton/executors/heartbeat":
		if f.failHeartbeats {
			w.WriteHeader(503)
			return
		}
		ack := map[string]any{"executorId": 1, "intervalMs": 60000}
		if f.intervalMs > 0 {
			ack["intervalMs"] = f.intervalMs
		}
		if f.handBacks != nil {
			ack["handBacks"] = *f.handBacks
		}
		f.acked++
		_ = json.NewEncoder(w).Encode(ack)
	case "/baton/callbacks":
		var cb callback
		_ = json.Unmarshal(body, &cb)
		f.singles++
		f.finals[runKey(cb.RunID, cb.Attempt)] = cb.Outcome
		f.received = append(f.received, cb)
		if f.takenAt != nil {
			f.takenAt[cb.RunID] = time.Now()
		}
		_, _ = w.Write([]byte(`{}`))
	case "/baton/callbacks/batch":
		if f.noBatches {
			w.WriteHeader(404)
			return
		}
		var b struct{ Callbacks []callback }
		_ = json.Unmarshal(body, &b)
		f.batches = append(f.batches, len(b.Callbacks))
		var results []map[string]any
		for _, cb := range b.Callbacks {
			f.finals[runKey(cb.RunID, cb.Attempt)] = cb.Outcome
			f.received = append(f.received, cb)
			results = append(results, map[string]any{"runId": cb.RunID, "attempt": cb.Attempt, "status": 200, "body": map[string]any{}})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"results": results})
	default:
		w.WriteHeader(404)
	}
}

func (f *fakeEngine) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.finals)
}

func startExecutor(t *testing.T, engineURL string, o Options, hs ...Handler) *Executor {
	t.Helper()
	o.EngineURLs = []string{engineURL}
	return startExecutorOn(t, o, hs...)
}

// startExecutorOn starts an executor of tenant acme on o's EngineURLs, stopped when the test ends.
func startExecutorOn(t *testing.T, o Options, hs ...Handler) *Executor {
	t.Helper()
	o.Tenant, o.Secret = "acme", "secret"
	if o.Logger == nil {
		o.Logger = discardLogger
	}
	e, err := New(o, hs...)
	if err == nil {
		err = e.Start()
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = e.Shutdown(ctx)
	})
	return e
}

func dispatchBatch(t *testing.T, e *Executor, engineURL string, n int) {
	t.Helper()
	dispatchRuns(t, e, []string{engineURL}, n)
}

// dispatchRuns sends runs 1..n of handler "gate" in one dispatch batch, each listing callbackURLs.
func dispatchRuns(t *testing.T, e *Executor, callbackURLs []string, n int) {
	t.Helper()
	var runs []map[string]any
	for i := 1; i <= n; i++ {
		runs = append(runs, map[string]any{"runId": i, "attempt": 1, "tenantId": "acme", "taskId": 1, "taskName": "t", "handler": "gate",
			"params": nil, "scheduledAt": nowMs(), "deadline": nowMs() + 60_000, "callbackUrls": callbackURLs})
	}
	body, _ := json.Marshal(map[string]any{"runs": runs})
	req, _ := http.NewRequest("POST", e.URL()+"/baton/runs/batch", bytes.NewReader(body))
	for k, v := range Sign("secret", "acme", "POST", "/baton/runs/batch", body, nowMs()) {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil || res.StatusCode != 200 {
		t.Fatalf("dispatch batch: %v %v", err, res)
	}
	res.Body.Close()
}

func waitFor(t *testing.T, what string, done func() bool) {
	t.Helper()
	for until := time.Now().Add(5 * time.Second); !done(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(until) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// endFiftyTogether runs 50 runs of one dispatch batch on an executor of `engine`, ends them at
// the same moment and returns once the engine has the 50 final callbacks.
func endFiftyTogether(t *testing.T, engine *fakeEngine, opts Options) {
	srv := httptest.NewServer(engine)
	t.Cleanup(srv.Close)
	gate := make(chan struct{})
	e := startExecutor(t, srv.URL, opts, Handle("gate", func(ctx context.Context, run *Run) (any, error) {
		<-gate
		return nil, nil
	}))
	dispatchBatch(t, e, srv.URL, 50)
	waitFor(t, "50 running", func() bool { e.mu.Lock(); defer e.mu.Unlock(); return e.running == 50 })
	close(gate)
	waitFor(t, "50 callbacks", func() bool { return engine.count() == 50 })
}

// Runs that end together are called back in batch requests, not one request each.
func TestFinalCallbacksEndingTogetherGoInBatches(t *testing.T) {
	engine := &fakeEngine{finals: map[string]string{}}
	endFiftyTogether(t, engine, Options{Concurrency: 50})
	engine.mu.Lock()
	defer engine.mu.Unlock()
	if len(engine.batches) == 0 || len(engine.batches)+engine.singles >= 25 {
		t.Errorf("50 callbacks took %d batch requests %v and %d single ones", len(engine.batches), engine.batches, engine.singles)
	}
}

// CallbackConcurrency limits the requests in flight, not the callbacks: with 2, the callbacks
// that end while two requests are out all go in the next batches, not two at a time.
func TestCallbackConcurrencyLimitsRequestsNotTheCallbacksInThem(t *testing.T) {
	engine := &fakeEngine{finals: map[string]string{}, delay: 50 * time.Millisecond}
	endFiftyTogether(t, engine, Options{Concurrency: 50, CallbackConcurrency: 2})
	engine.mu.Lock()
	defer engine.mu.Unlock()
	if requests := len(engine.batches) + engine.singles; requests > 6 {
		t.Errorf("50 callbacks took %d requests: batches %v and %d single ones", requests, engine.batches, engine.singles)
	}
	if engine.maxInFlight > 2 {
		t.Errorf("%d callback requests in flight at once, want at most 2", engine.maxInFlight)
	}
}

// An engine without the batch route gets the callbacks one by one.
func TestFinalCallbacksGoOneByOneToAnEngineWithoutTheBatchRoute(t *testing.T) {
	engine := &fakeEngine{finals: map[string]string{}, noBatches: true}
	srv := httptest.NewServer(engine)
	defer srv.Close()
	e := startExecutor(t, srv.URL, Options{Concurrency: 20}, Handle("gate", func(ctx context.Context, run *Run) (any, error) { return nil, nil }))
	dispatchBatch(t, e, srv.URL, 20)
	waitFor(t, "20 callbacks", func() bool { return engine.count() == 20 })
	engine.mu.Lock()
	defer engine.mu.Unlock()
	if engine.singles != 20 {
		t.Errorf("%d single callbacks, want 20", engine.singles)
	}
}

// A callback refused with 429 (an engine's tenant admission) is kept and sent again after the
// engine's Retry-After — not earlier, even though another run's callback taken meanwhile wakes
// the callbacks waiting in backoff.
func TestACallbackRefusedWith429IsSentAgainAfterRetryAfter(t *testing.T) {
	engine := &fakeEngine{finals: map[string]string{}, refuse429: 1, takenAt: map[int64]time.Time{}}
	srv := httptest.NewServer(engine)
	defer srv.Close()
	e := startExecutor(t, srv.URL, Options{Concurrency: 2, RetryBase: 20 * time.Millisecond, RetryMax: 100 * time.Millisecond},
		Handle("gate", func(ctx context.Context, run *Run) (any, error) { return nil, nil }))
	if status := signed(t, e, "POST", "/baton/runs", dispatchOf(srv.URL, 1, "gate", nil), nil); status != 202 {
		t.Fatalf("dispatch of run 1: %d", status)
	}
	waitFor(t, "the refusal", func() bool { engine.mu.Lock(); defer engine.mu.Unlock(); return len(engine.refusedAt) == 1 })
	if status := signed(t, e, "POST", "/baton/runs", dispatchOf(srv.URL, 2, "gate", nil), nil); status != 202 {
		t.Fatalf("dispatch of run 2: %d", status)
	}
	waitFor(t, "both callbacks", func() bool { return engine.count() == 2 })
	engine.mu.Lock()
	defer engine.mu.Unlock()
	if !engine.takenAt[2].Before(engine.takenAt[1]) {
		t.Errorf("run 2's callback was taken at %v, after run 1's retry at %v", engine.takenAt[2], engine.takenAt[1])
	}
	if waited := engine.takenAt[1].Sub(engine.refusedAt[0]); waited < 990*time.Millisecond {
		t.Errorf("run 1's callback was sent again %v after its 429, before its Retry-After (1 s)", waited)
	}
}

// A final callback left in the spool file by a stopped executor is delivered by the next one.
func TestSpooledCallbacksAreDeliveredAfterARestart(t *testing.T) {
	spoolFile := filepath.Join(t.TempDir(), "spool.jsonl")
	var lines bytes.Buffer
	for i := 1; i <= 3; i++ {
		line, _ := json.Marshal(spoolLine{Put: &callback{RunID: int64(i), Attempt: 1, TenantID: "acme", Outcome: "SUCCEEDED", FinishedAt: nowMs()}})
		lines.Write(append(line, '\n'))
	}
	lines.WriteString(`{"done":"2:1"}` + "\n" + `{"put":{"runId":9,` + "\n") // run 2 delivered; a line cut by a crash
	if err := os.WriteFile(spoolFile, lines.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	engine := &fakeEngine{finals: map[string]string{}}
	srv := httptest.NewServer(engine)
	defer srv.Close()
	startExecutor(t, srv.URL, Options{SpoolFile: spoolFile}, Handle("gate", func(ctx context.Context, run *Run) (any, error) { return nil, nil }))
	waitFor(t, "the spooled callbacks", func() bool { return engine.count() == 2 })
	engine.mu.Lock()
	got := fmt.Sprint(engine.finals)
	engine.mu.Unlock()
	if got != "map[1:1:SUCCEEDED 3:1:SUCCEEDED]" {
		t.Errorf("delivered %s", got)
	}
	waitFor(t, "the spool emptied", func() bool { st, err := os.Stat(spoolFile); return err == nil && st.Size() == 0 })
}
