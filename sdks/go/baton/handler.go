package baton

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// HandlerFunc does one attempt of a run. ctx is cancelled when the run is aborted (the engine's
// timeout, cancel or replace, its deadline passing, the executor shutting down); pass it on to
// the calls that take one. A JSON-serialisable result → SUCCEEDED; an error → FAILED, retried
// by the task's policy unless it is (or wraps) a NonRetryableError.
type HandlerFunc func(ctx context.Context, run *Run) (any, error)

// Handler is a named piece of business work; tasks name it in the console.
type Handler struct {
	Name string
	// A JSON schema of the params (a JSON object, e.g. a map or json.RawMessage), sent with the
	// heartbeat: the console shows it in the task editor and refuses to save a task whose params do
	// not fit. Optional; one over 16 KB serialised, or past 60 KB for all together, is not sent.
	ParamsSchema any
	Run          HandlerFunc
}

// Handle is a Handler from a name and a function.
func Handle(name string, run HandlerFunc) Handler { return Handler{Name: name, Run: run} }

// NonRetryableError ends the run FAILED at once, without spending the task's remaining attempts
// (the callback says `retryable: false`). Wrapping one (fmt.Errorf("…: %w", err)) counts too, as
// does any error with a `NonRetryable() bool` method returning true.
type NonRetryableError struct {
	Message string
	Err     error
}

// NonRetryable is a NonRetryableError with a formatted message.
func NonRetryable(format string, args ...any) error {
	return &NonRetryableError{Message: fmt.Sprintf(format, args...)}
}

func (e *NonRetryableError) Error() string {
	if e.Err != nil {
		return e.Message + ": " + e.Err.Error()
	}
	return e.Message
}
func (e *NonRetryableError) Unwrap() error      { return e.Err }
func (e *NonRetryableError) NonRetryable() bool { return true }

// IsNonRetryable tells whether err asks not to be retried.
func IsNonRetryable(err error) bool {
	var marked interface{ NonRetryable() bool }
	return errors.As(err, &marked) && marked.NonRetryable()
}

// Sleep waits d, or returns ctx.Err() as soon as ctx is done (the run aborted).
func Sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type traceparentKey struct{}

// TraceparentFrom is the W3C traceparent of the run whose handler got ctx ("" when untraced): the
// engine's dispatch span, to hand to a tracer or to pass on in outgoing requests.
func TraceparentFrom(ctx context.Context) string {
	tp, _ := ctx.Value(traceparentKey{}).(string)
	return tp
}

// Severity of a business alarm.
type Severity string

const (
	SeverityInfo     Severity = "INFO"
	SeverityWarning  Severity = "WARNING"
	SeverityCritical Severity = "CRITICAL"
)

// Run is one attempt of a run as its handler sees it.
type Run struct {
	RunID    int64
	Attempt  int // 1 for the first attempt, 2 for the first retry, …
	TenantID string
	TaskID   int64
	TaskName string
	Handler  string
	// The task's params as configured in the console (JSON; "null" when none). See Bind.
	Params      json.RawMessage
	ScheduledAt time.Time
	// ctx is cancelled when it passes. On this executor's clock: the dispatch's arrival + the time
	// the engine gave the run then (deadlineInMs), so a clock ahead of the engines' does not cut
	// the run short (from an older engine that does not send it: the engine's deadline).
	Deadline time.Time
	// In a flow: the results of this run's parent tasks, by task name ({} for a run no parent fired).
	ParentResults map[string]json.RawMessage
	// Params of the flow this run belongs to, or nil.
	FlowParams json.RawMessage
	// A BROADCAST or SHARDED task's run is split into shards: this one's index of ShardTotal
	// (take the items where hash(item) % ShardTotal == ShardIndex). 0 of 1 for other runs.
	ShardIndex int
	ShardTotal int
	// The run's W3C trace context when the engines trace ("" otherwise), also in ctx
	// (TraceparentFrom). With OpenTelemetry: propagation.TraceContext{}.Extract(ctx,
	// propagation.MapCarrier{"traceparent": run.Traceparent}) gives the context your spans nest under.
	Traceparent string

	job *job
}

// Bind decodes the params into v (a pointer); null params leave v as it is.
func (r *Run) Bind(v any) error {
	if len(r.Params) == 0 || string(r.Params) == "null" {
		return nil
	}
	if err := json.Unmarshal(r.Params, v); err != nil {
		return NonRetryable("params: %v", err)
	}
	return nil
}

// Debugf, Infof, Warnf and Errorf write a line to the run's log: the console shows it while the
// handler runs (interim callbacks about once a second) and with the run's result.
func (r *Run) Debugf(format string, args ...any) { r.job.log("debug", fmt.Sprintf(format, args...)) }
func (r *Run) Infof(format string, args ...any)  { r.job.log("info", fmt.Sprintf(format, args...)) }
func (r *Run) Warnf(format string, args ...any)  { r.job.log("warn", fmt.Sprintf(format, args...)) }
func (r *Run) Errorf(format string, args ...any) { r.job.log("error", fmt.Sprintf(format, args...)) }

// Progress reports how far the run is, 0–100 (clamped), in a throttled interim callback.
func (r *Run) Progress(percent float64) { r.job.setProgress(percent) }

// Alarm raises a business alarm on the tenant's alarm topic (type BUSINESS). It rides an interim
// or the final callback and the engine publishes it once. data: any JSON-serialisable value or nil.
func (r *Run) Alarm(severity Severity, message string, data any) {
	r.job.alarm(severity, message, data)
}

// AbortReason is why ctx was cancelled: TIMEOUT, CANCELLED, REPLACED (the engine asked),
// DEADLINE or SHUTDOWN; "" while the run is not aborted.
func (r *Run) AbortReason() string { return r.job.reason() }
