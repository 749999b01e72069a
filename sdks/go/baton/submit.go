package baton

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"sync"
)

// MaxBatchRuns is the most runs one SubmitBatch takes, and MaxBatchEvents the most events one
// EmitEvents takes (the console's bounds).
const (
	MaxBatchRuns   = 1000
	MaxBatchEvents = 500
)

// BatchRun is one run of a batch (SubmitBatch): the task and what SubmitRun says of the run.
type BatchRun struct {
	TaskID int64
	SubmitRun
}

// MarshalJSON is the run as POST /api/runs/batch takes it.
func (r BatchRun) MarshalJSON() ([]byte, error) {
	body := map[string]any{"taskId": r.TaskID}
	if r.Params != nil {
		body["params"] = r.Params
	}
	if r.FlowParams != nil {
		body["flowParams"] = r.FlowParams
	}
	if r.IdempotencyKey != "" {
		body["idempotencyKey"] = r.IdempotencyKey
	}
	return json.Marshal(body)
}

// BatchResult is a run's result in a batch, in the order sent: Status 201 made now, 200 made
// before under its idempotency key, 400 refused, 404 no such task; Run when made, Err (the
// console's code and the fields it names, as the batch names them: runs[3].params.width) when not.
type BatchResult struct {
	Status int
	Run    *SubmittedRun
	Err    *APIError
}

// EventResult is an event's result in a batch, in the order sent: Status 201 stored now, 200
// stored before under its idempotency key, 400 refused; Event when stored, Err when refused.
type EventResult struct {
	Status int
	Event  *EmittedEvent
	Err    *APIError
}

// itemRefusal is a refused item's error as a batch answer carries it.
type itemRefusal struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Errors  []FieldProblem `json:"errors"`
}

func (r *itemRefusal) apiError(status int) *APIError {
	if r == nil {
		return nil
	}
	return &APIError{Status: status, Code: r.Code, Message: r.Message, Errors: r.Errors}
}

// SubmitBatch asks for up to MaxBatchRuns runs, of one task or several, in one request (POST
// /api/runs/batch): each run's result, in order. Atomic: all are made, or none and an *APIError
// naming every refused run. A batch that got no answer is sent again only when every run carries
// an idempotency key.
func (c *Client) SubmitBatch(ctx context.Context, runs []BatchRun, atomic bool) ([]BatchResult, error) {
	body := map[string]any{"runs": runs}
	if atomic {
		body["atomic"] = true
	}
	resendable := true
	for _, r := range runs {
		resendable = resendable && r.IdempotencyKey != ""
	}
	return postBatch(ctx, c, "/api/runs/batch", body, resendable, "run", func(status int, run *SubmittedRun, err *APIError) BatchResult {
		return BatchResult{Status: status, Run: run, Err: err}
	})
}

// EmitEvents sends up to MaxBatchEvents events in one request (POST /api/events): each one's
// result, in order (a refused one is its own 400). Sent again after no answer only when every
// event carries an idempotency key.
func (c *Client) EmitEvents(ctx context.Context, events []Event) ([]EventResult, error) {
	resendable := true
	for _, e := range events {
		resendable = resendable && e.IdempotencyKey != ""
	}
	return postBatch(ctx, c, "/api/events", map[string]any{"events": events}, resendable, "event", func(status int, event *EmittedEvent, err *APIError) EventResult {
		return EventResult{Status: status, Event: event, Err: err}
	})
}

// postBatch sends a batch request and reads its answer, `{"results": [{status, <field>, error}, …]}`:
// each item's result as `result` makes it from its status, the item the console answers under
// `field` (nil when refused) and its refusal (nil when not).
func postBatch[T any, R any](ctx context.Context, c *Client, path string, body any, resendable bool, field string, result func(status int, item *T, err *APIError) R) ([]R, error) {
	var answer struct {
		Results []map[string]json.RawMessage `json:"results"`
	}
	if _, err := c.post(ctx, path, body, nil, resendable, &answer); err != nil {
		return nil, err
	}
	results := make([]R, len(answer.Results))
	for i, r := range answer.Results {
		var status int
		var item *T
		var refusal *itemRefusal
		if err := decodeFields(r, map[string]any{"status": &status, field: &item, "error": &refusal}); err != nil {
			return nil, fmt.Errorf("baton: result %d of the console's answer is not the expected JSON: %w", i, err)
		}
		results[i] = result(status, item, refusal.apiError(status))
	}
	return results, nil
}

// decodeFields decodes each field present in r into its target.
func decodeFields(r map[string]json.RawMessage, targets map[string]any) error {
	for name, target := range targets {
		if raw, ok := r[name]; ok {
			if err := json.Unmarshal(raw, target); err != nil {
				return fmt.Errorf("%s: %w", name, err)
			}
		}
	}
	return nil
}

// Submit asks for a run of the task now, as Trigger does, but sent together with the runs other
// goroutines submit meanwhile: alone when no request is in flight, else in the next
// POST /api/runs/batch (see together). Each run still gets its own answer: the run made (created
// false: the run its idempotency key made before), or an *APIError naming its own fields
// (params.width), as a trigger's would. Past MaxWaiting runs waiting in the client, an *APIError
// 429 CLIENT_BACKLOG at once. Cancelling ctx stops the wait, not the run: once submitted it may
// still be made.
func (c *Client) Submit(ctx context.Context, taskID int64, run SubmitRun) (SubmittedRun, bool, error) {
	c.lanes()
	done, err := c.runs.push(BatchRun{TaskID: taskID, SubmitRun: run}, c.MaxWaiting, "runs")
	if err != nil {
		return SubmittedRun{}, false, err
	}
	select {
	case <-ctx.Done():
		return SubmittedRun{}, false, ctx.Err()
	case out := <-done:
		if out.err != nil {
			return SubmittedRun{}, false, out.err
		}
		if out.result.Run == nil {
			return SubmittedRun{}, false, itemError(out.result.Status, out.result.Err, "runs")
		}
		return *out.result.Run, out.result.Status == 201, nil
	}
}

// Emit sends an event, as EmitEvent does, together with the events other goroutines emit
// meanwhile (as Submit sends runs): the event stored, or an *APIError naming its own fields.
func (c *Client) Emit(ctx context.Context, event Event) (EmittedEvent, error) {
	c.lanes()
	done, err := c.events.push(event, c.MaxWaiting, "events")
	if err != nil {
		return EmittedEvent{}, err
	}
	select {
	case <-ctx.Done():
		return EmittedEvent{}, ctx.Err()
	case out := <-done:
		if out.err != nil {
			return EmittedEvent{}, out.err
		}
		if out.result.Event == nil {
			return EmittedEvent{}, itemError(out.result.Status, out.result.Err, "events")
		}
		return *out.result.Event, nil
	}
}

// sendLanes is where Submit and Emit gather their items (made on first use).
type sendLanes struct {
	once   sync.Once
	runs   *together[BatchRun, BatchResult]
	events *together[Event, EventResult]
}

// lanes makes the client's lanes once. A batch serves many callers, so it is sent with a
// context of its own: one caller's cancel does not cancel the others' runs.
func (c *Client) lanes() {
	c.once.Do(func() {
		c.runs = &together[BatchRun, BatchResult]{
			send:     func(runs []BatchRun) ([]BatchResult, error) { return c.SubmitBatch(context.Background(), runs, false) },
			maxItems: MaxBatchRuns,
			refused:  func(err *APIError) BatchResult { return BatchResult{Status: err.Status, Err: err} },
		}
		c.events = &together[Event, EventResult]{
			send:     func(events []Event) ([]EventResult, error) { return c.EmitEvents(context.Background(), events) },
			maxItems: MaxBatchEvents,
			refused:  func(err *APIError) EventResult { return EventResult{Status: err.Status, Err: err} },
		}
	})
}

// itemError is an item's refusal as its submitter's error: the console's status and code, its
// fields named as the submitter knows them (params.width, not the batch's runs[3].params.width).
func itemError(status int, refusal *APIError, batchField string) *APIError {
	if refusal == nil {
		return &APIError{Status: status, Code: fmt.Sprintf("HTTP_%d", status), Message: fmt.Sprintf("HTTP %d", status)}
	}
	prefix := regexp.MustCompile(`^` + batchField + `\[\d+\]\.`)
	out := &APIError{Status: refusal.Status, Code: refusal.Code, Message: refusal.Message, Errors: make([]FieldProblem, len(refusal.Errors))}
	for i, e := range refusal.Errors {
		out.Errors[i] = FieldProblem{Field: prefix.ReplaceAllString(e.Field, ""), Reason: e.Reason}
	}
	return out
}
