package baton

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
)

// batchConsole is a stand-in for POST /api/runs/batch: it makes each run (id = 100 + its width
// param), refuses a run of width < 0 on its own (400 naming runs[i].params.width), and refuses a
// whole request that holds a run of width "deep" (as the console refuses a body too deep before
// writing anything). It counts requests and the most in flight at once.
type batchConsole struct {
	requests, inFlight, mostInFlight atomic.Int32
	runs                             atomic.Int32
	// When set, each request says it arrived on arrived, then waits for release to close.
	arrived, release chan struct{}
}

func gatedConsole() *batchConsole {
	return &batchConsole{arrived: make(chan struct{}, 16), release: make(chan struct{})}
}

func (b *batchConsole) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b.requests.Add(1)
	now := b.inFlight.Add(1)
	defer b.inFlight.Add(-1)
	for {
		most := b.mostInFlight.Load()
		if now <= most || b.mostInFlight.CompareAndSwap(most, now) {
			break
		}
	}
	if b.release != nil {
		b.arrived <- struct{}{}
		<-b.release
	}
	var body struct {
		Runs []struct {
			TaskID int64          `json:"taskId"`
			Params map[string]any `json:"params"`
		} `json:"runs"`
	}
	w.Header().Set("Content-Type", "application/json")
	if r.URL.Path != "/api/runs/batch" || json.NewDecoder(r.Body).Decode(&body) != nil {
		w.WriteHeader(http.StatusNotFound)
		return
	}
	for _, run := range body.Runs {
		if run.Params["width"] == "deep" {
			w.WriteHeader(http.StatusBadRequest)
			_, _ = w.Write([]byte(`{"statusCode":400,"code":"VALIDATION_FAILED","message":"too deep","errors":[{"field":"runs","reason":"nested too deep"}]}`))
			return
		}
	}
	results := make([]map[string]any, len(body.Runs))
	for i, run := range body.Runs {
		width, _ := run.Params["width"].(float64)
		if width < 0 {
			results[i] = map[string]any{"status": 400, "error": map[string]any{"code": "VALIDATION_FAILED", "message": "bad params", "errors": []any{map[string]any{"field": fmt.Sprintf("runs[%d].params.width", i), "reason": "must be at least 0"}}}}
			continue
		}
		b.runs.Add(1)
		results[i] = map[string]any{"status": 201, "run": map[string]any{"id": 100 + int(width), "taskId": run.TaskID, "state": "PENDING", "createdAt": 1}}
	}
	_ = json.NewEncoder(w).Encode(map[string]any{"results": results})
}

func TestSubmitSendsRunsOfManyGoroutinesTogetherOneRequestInFlight(t *testing.T) {
	console := &batchConsole{}
	srv := httptest.NewServer(console)
	defer srv.Close()
	c, err := NewClient(srv.URL, "key")
	if err != nil {
		t.Fatal(err)
	}
	const n = 200
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			run, created, err := c.Submit(context.Background(), 3, SubmitRun{Params: map[string]any{"width": i}})
			if err != nil || !created || run.ID != int64(100+i) || run.TaskID != 3 {
				errs <- fmt.Errorf("run %d: %+v created %v err %v", i, run, created, err)
			}
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := console.runs.Load(); got != n {
		t.Fatalf("%d runs made, want %d", got, n)
	}
	if console.mostInFlight.Load() != 1 {
		t.Fatalf("%d requests in flight at once, want 1", console.mostInFlight.Load())
	}
	t.Logf("%d runs in %d requests", n, console.requests.Load())
}

// heldClient is a client of a gated console whose first run (width 0) is in flight and held
// there: what is pushed next waits behind it until the console's release is closed. first
// answers that run's error; stop closes the console.
func heldClient(maxWaiting int) (console *batchConsole, c *Client, first <-chan error, stop func()) {
	console = gatedConsole()
	srv := httptest.NewServer(console)
	c, _ = NewClient(srv.URL, "key")
	c.MaxWaiting = maxWaiting
	answered := make(chan error, 1)
	go func() {
		_, _, err := c.Submit(context.Background(), 3, SubmitRun{Params: map[string]any{"width": 0}})
		answered <- err
	}()
	<-console.arrived
	c.lanes()
	return console, c, answered, srv.Close
}

func TestSubmitGathersWhatWaitsWhileARequestIsInFlight(t *testing.T) {
	console, c, first, stop := heldClient(20_000)
	defer stop()
	var waiting []<-chan itemOutcome[BatchResult]
	for i := 1; i <= 5; i++ {
		done, err := c.runs.push(BatchRun{TaskID: 3, SubmitRun: SubmitRun{Params: map[string]any{"width": i}}}, c.MaxWaiting, "runs")
		if err != nil {
			t.Fatal(err)
		}
		waiting = append(waiting, done)
	}
	close(console.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	for i, done := range waiting {
		if out := <-done; out.err != nil || out.result.Run == nil || out.result.Run.ID != int64(101+i) {
			t.Fatalf("run %d: %+v", i+1, out)
		}
	}
	if got := console.requests.Load(); got != 2 {
		t.Fatalf("%d requests, want 2: the first alone, the five that waited together", got)
	}
}

func TestSubmitAnswersEachRefusalOnItsOwnFieldsAndABadRunCostsNoOther(t *testing.T) {
	console, c, _, stop := heldClient(20_000)
	defer stop()
	widths := []any{1, -1, "deep", 4, 5}
	var waiting []<-chan itemOutcome[BatchResult]
	for _, w := range widths {
		done, _ := c.runs.push(BatchRun{TaskID: 3, SubmitRun: SubmitRun{Params: map[string]any{"width": w}}}, c.MaxWaiting, "runs")
		waiting = append(waiting, done)
	}
	close(console.release)
	outcomes := make([]itemOutcome[BatchResult], len(waiting))
	for i, done := range waiting {
		outcomes[i] = <-done
	}
	for _, i := range []int{0, 3, 4} {
		if outcomes[i].result.Run == nil || outcomes[i].result.Run.ID != int64(100+widths[i].(int)) {
			t.Fatalf("width %v: %+v", widths[i], outcomes[i])
		}
	}
	negative := itemError(outcomes[1].result.Status, outcomes[1].result.Err, "runs")
	if negative.Status != 400 || len(negative.Errors) != 1 || negative.Errors[0].Field != "params.width" {
		t.Fatalf("width -1: %#v", negative)
	}
	if deep := outcomes[2].result; deep.Status != 400 || deep.Run != nil || deep.Err == nil || deep.Err.Errors[0].Field != "runs" {
		t.Fatalf("the deep run: %#v", deep)
	}
}

func TestSubmitRefusesPastMaxWaitingAtOnce(t *testing.T) {
	console, c, _, stop := heldClient(2)
	defer stop()
	for i := 0; i < 2; i++ {
		if _, err := c.runs.push(BatchRun{TaskID: 3}, c.MaxWaiting, "runs"); err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := c.Submit(context.Background(), 3, SubmitRun{})
	var refused *APIError
	if !errors.As(err, &refused) || refused.Status != 429 || refused.Code != "CLIENT_BACKLOG" {
		t.Fatalf("past MaxWaiting: %#v", err)
	}
	close(console.release)
}

func TestEmitSendsEventsTogetherAndAnswersEachOnItsOwn(t *testing.T) {
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		var body struct {
			Events []Event `json:"events"`
		}
		if r.URL.Path != "/api/events" || json.NewDecoder(r.Body).Decode(&body) != nil || len(body.Events) == 0 {
			w.WriteHeader(http.StatusBadRequest)
			return
		}
		results := make([]map[string]any, len(body.Events))
		for i, e := range body.Events {
			if e.Name == "" {
				results[i] = map[string]any{"status": 400, "error": map[string]any{"code": "VALIDATION_FAILED", "message": "bad", "errors": []any{map[string]any{"field": fmt.Sprintf("events[%d].name", i), "reason": "must not be empty"}}}}
				continue
			}
			results[i] = map[string]any{"status": 201, "event": map[string]any{"id": 1 + i, "name": e.Name, "runIds": []int{}, "created": true}}
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"results": results})
	}))
	defer srv.Close()
	c, _ := NewClient(srv.URL, "key")
	stored, err := c.Emit(context.Background(), Event{Name: "order.paid", Payload: map[string]any{"id": 1}})
	if err != nil || stored.Name != "order.paid" || !stored.Created {
		t.Fatalf("event %+v err %v", stored, err)
	}
	_, err = c.Emit(context.Background(), Event{})
	var refused *APIError
	if !errors.As(err, &refused) || refused.Status != 400 || refused.Errors[0].Field != "name" {
		t.Fatalf("refusal %#v", err)
	}
}

func TestSubmitRefusesARunThatIsNotJSONAloneAndAtOnce(t *testing.T) {
	console, c, first, stop := heldClient(20_000)
	defer stop()
	// A good run waits behind the held request; the bad one, submitted meanwhile, must not join (and fail) its batch.
	good, err := c.runs.push(BatchRun{TaskID: 3, SubmitRun: SubmitRun{Params: map[string]any{"width": 1}}}, c.MaxWaiting, "runs")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := c.Submit(context.Background(), 3, SubmitRun{Params: map[string]any{"width": make(chan int)}}); err == nil {
		t.Fatal("a run whose params are not JSON was accepted")
	}
	close(console.release)
	if err := <-first; err != nil {
		t.Fatal(err)
	}
	if out := <-good; out.err != nil || out.result.Run == nil || out.result.Run.ID != 101 {
		t.Fatalf("the run queued beside it: %+v", out)
	}
}
