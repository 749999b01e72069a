// A service that submits work to Baton: one event and one run of a task, then 20 runs submitted
// at once from 20 goroutines (Submit: sent together) and one with a bad key, through the
// console's API with a tenant API key. BATON_API_URL, BATON_API_KEY, BATON_TASK_ID; prints each answer as a
// JSON line (the Go client's conformance test, test/protocol/go-client.e2e-spec.ts, reads them).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/baton-dev/baton/sdks/go/baton"
)

func main() {
	c, err := baton.NewClient(os.Getenv("BATON_API_URL"), os.Getenv("BATON_API_KEY"))
	if err != nil {
		fail(err)
	}
	taskID, err := strconv.ParseInt(os.Getenv("BATON_TASK_ID"), 10, 64)
	if err != nil {
		fail(fmt.Errorf("BATON_TASK_ID: %w", err))
	}
	ctx := context.Background()
	out := json.NewEncoder(os.Stdout)

	event, err := c.EmitEvent(ctx, baton.Event{Name: "order.paid", Payload: map[string]any{"order": map[string]any{"id": 42}}, IdempotencyKey: "go-paid-42"})
	report(out, "event", event, err)
	again, err := c.EmitEvent(ctx, baton.Event{Name: "order.paid", Payload: map[string]any{"order": map[string]any{"id": 42}}, IdempotencyKey: "go-paid-42"})
	report(out, "event again", again, err)
	run, created, err := c.Trigger(ctx, taskID, baton.SubmitRun{Params: map[string]any{"width": 3}, IdempotencyKey: "go-run-1"})
	report(out, "trigger", map[string]any{"run": run, "created": created}, err)
	_, _, err = c.Trigger(ctx, taskID, baton.SubmitRun{Params: map[string]any{"width": 3}, IdempotencyKey: "not a key"})
	report(out, "bad key", nil, err)

	// From many goroutines at once: each run answered on its own, the runs sent together.
	var wg sync.WaitGroup
	var mu sync.Mutex
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			run, created, err := c.Submit(ctx, taskID, baton.SubmitRun{Params: map[string]any{"width": i}, IdempotencyKey: fmt.Sprintf("go-submit-%d", i)})
			mu.Lock()
			defer mu.Unlock()
			report(out, "submit", map[string]any{"run": run, "created": created, "width": i}, err)
		}(i)
	}
	wg.Wait()
	_, _, err = c.Submit(ctx, taskID, baton.SubmitRun{Params: map[string]any{"width": 3}, IdempotencyKey: "not a key"})
	report(out, "submit bad key", nil, err)
}

func report(out *json.Encoder, what string, answer any, err error) {
	var refused *baton.APIError
	switch {
	case errors.As(err, &refused):
		_ = out.Encode(map[string]any{"what": what, "status": refused.Status, "code": refused.Code, "errors": refused.Errors})
	case err != nil:
		fail(err)
	default:
		_ = out.Encode(map[string]any{"what": what, "answer": answer})
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
