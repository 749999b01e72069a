package baton

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"time"
)

// dispatchRequest is a DispatchRequest of libs/protocol/src/messages.ts, checked.
type dispatchRequest struct {
	RunID         int64
	Attempt       int64
	TenantID      string
	TaskID        int64
	TaskName      string
	Handler       string
	Params        json.RawMessage
	ScheduledAt   int64
	Deadline      int64    // when the handler must be done: epoch ms on this executor's clock once dispatch set it (localDeadline)
	DeadlineInMs  *float64 // the time left until the deadline as the request left the engine; nil from an older engine
	CallbackURLs  []string
	ParentResults map[string]json.RawMessage
	FlowParams    json.RawMessage
	ShardIndex    int64
	ShardTotal    int64
	StartInMs     int64
	Traceparent   string
}

func (r dispatchRequest) key() string { return runKey(r.RunID, r.Attempt) }

// localDeadline is the run's deadline on this executor's clock: its request's arrival (epoch ms)
// + DeadlineInMs, which the engine counted on its corrected time as the request left, rounded up
// to the ms. Relative, so an executor whose clock is ahead of the engines' does not abort its
// handlers early (the transit only makes it later). From an engine that sends no DeadlineInMs
// (an older one): its Deadline, read on this clock.
func (r dispatchRequest) localDeadline(arrivedAt int64) int64 {
	if r.DeadlineInMs == nil {
		return r.Deadline
	}
	return arrivedAt + int64(math.Ceil(*r.DeadlineInMs))
}

func runKey(runID, attempt int64) string { return fmt.Sprintf("%d:%d", runID, attempt) }

// refusal is a DispatchRefusal: the body of every error answer of an executor.
type refusal struct {
	Accepted bool   `json:"accepted"`
	Reason   string `json:"reason"`
	Message  string `json:"message"`
	Field    string `json:"field,omitempty"`
}

func badRequest(field, message string) *refusal {
	return &refusal{Reason: "BAD_REQUEST", Message: message, Field: field}
}

var callbackURL = regexp.MustCompile(`^https?://[^/\s]+`)

// parseDispatch checks a dispatch body as the Node SDK does: a refusal names the wrong field.
func parseDispatch(raw json.RawMessage) (dispatchRequest, *refusal) {
	var req dispatchRequest
	var body map[string]json.RawMessage
	if err := json.Unmarshal(raw, &body); err != nil || body == nil {
		return req, badRequest("body", "body: must be a JSON object")
	}
	present := func(field string) bool { v, ok := body[field]; return ok && string(v) != "null" }
	integer := func(field string, low int64, into *int64) *refusal {
		if !present(field) {
			return badRequest(field, field+": is required")
		}
		n, err := strconv.ParseInt(string(bytes.TrimSpace(body[field])), 10, 64)
		if err != nil {
			return badRequest(field, fmt.Sprintf("%s: must be an integer (got %s)", field, body[field]))
		}
		if n < low {
			return badRequest(field, fmt.Sprintf("%s: must be >= %d (got %d)", field, low, n))
		}
		*into = n
		return nil
	}
	str := func(field string, nonEmpty bool, into *string) *refusal {
		if !present(field) {
			return badRequest(field, field+": is required")
		}
		if err := json.Unmarshal(body[field], into); err != nil {
			return badRequest(field, field+": must be a string")
		}
		if nonEmpty && *into == "" {
			return badRequest(field, field+": must not be empty")
		}
		return nil
	}
	for _, check := range []func() *refusal{
		func() *refusal { return integer("runId", 1, &req.RunID) },
		func() *refusal { return integer("attempt", 1, &req.Attempt) },
		func() *refusal { return integer("taskId", 0, &req.TaskID) },
		func() *refusal { return integer("scheduledAt", 0, &req.ScheduledAt) },
		func() *refusal { return integer("deadline", 0, &req.Deadline) },
		func() *refusal { return str("tenantId", true, &req.TenantID) },
		func() *refusal { return str("taskName", false, &req.TaskName) },
		func() *refusal { return str("handler", true, &req.Handler) },
	} {
		if r := check(); r != nil {
			return req, r
		}
	}
	params, ok := body["params"]
	if !ok {
		return req, badRequest("params", "params: is required (null when the task has none)")
	}
	req.Params = params
	var urls []json.RawMessage
	if err := json.Unmarshal(body["callbackUrls"], &urls); err != nil || urls == nil {
		return req, badRequest("callbackUrls", "callbackUrls: is required (an array of engine base URLs, may be empty)")
	}
	for i, u := range urls {
		var s string
		if json.Unmarshal(u, &s) != nil || !callbackURL.MatchString(s) {
			field := fmt.Sprintf("callbackUrls[%d]", i)
			return req, badRequest(field, field+": must be an http(s) URL")
		}
		req.CallbackURLs = append(req.CallbackURLs, s)
	}
	if present("parentResults") {
		if err := json.Unmarshal(body["parentResults"], &req.ParentResults); err != nil {
			return req, badRequest("parentResults", "parentResults: must be an object of results by task name")
		}
	}
	if req.ParentResults == nil {
		req.ParentResults = map[string]json.RawMessage{}
	}
	if present("flowParams") {
		req.FlowParams = body["flowParams"]
	}
	req.ShardTotal = 1
	_, hasIndex := body["shardIndex"]
	_, hasTotal := body["shardTotal"]
	if hasIndex || hasTotal {
		for _, f := range []struct {
			name string
			low  int64
			into *int64
		}{{"shardTotal", 1, &req.ShardTotal}, {"shardIndex", 0, &req.ShardIndex}} {
			n, err := strconv.ParseInt(string(bytes.TrimSpace(body[f.name])), 10, 64)
			if !present(f.name) || err != nil {
				return req, badRequest(f.name, f.name+": is required as an integer with the other shard field")
			}
			if n < f.low {
				return req, badRequest(f.name, fmt.Sprintf("%s: must be >= %d (got %d)", f.name, f.low, n))
			}
			*f.into = n
		}
		if req.ShardIndex >= req.ShardTotal {
			return req, badRequest("shardIndex", fmt.Sprintf("shardIndex: must be below shardTotal (%d)", req.ShardTotal))
		}
	}
	if v, ok := body["deadlineInMs"]; ok {
		if json.Unmarshal(v, &req.DeadlineInMs) != nil || req.DeadlineInMs == nil || *req.DeadlineInMs < 0 {
			return req, badRequest("deadlineInMs", fmt.Sprintf("deadlineInMs: must be a finite number >= 0 (got %s)", v))
		}
	}
	if v, ok := body["startInMs"]; ok {
		n, err := strconv.ParseInt(string(bytes.TrimSpace(v)), 10, 64)
		if err != nil || n < 0 || n > maxStartInMs {
			return req, badRequest("startInMs", fmt.Sprintf("startInMs: must be an integer from 0 to %d (got %s)", maxStartInMs, v))
		}
		req.StartInMs = n
	}
	// A trace hint: a malformed one is dropped, never a reason to refuse the run.
	var tp string
	if json.Unmarshal(body["traceparent"], &tp) == nil && traceparentPattern.MatchString(tp) {
		req.Traceparent = tp
	}
	return req, nil
}

// traceparentPattern is a W3C traceparent of version 00, what the engines send.
var traceparentPattern = regexp.MustCompile(`^00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$`)

func (r dispatchRequest) run(j *job) *Run {
	return &Run{
		RunID: r.RunID, Attempt: int(r.Attempt), TenantID: r.TenantID, TaskID: r.TaskID, TaskName: r.TaskName,
		Handler: r.Handler, Params: r.Params, ScheduledAt: time.UnixMilli(r.ScheduledAt), Deadline: time.UnixMilli(r.Deadline),
		ParentResults: r.ParentResults, FlowParams: r.FlowParams, ShardIndex: int(r.ShardIndex), ShardTotal: int(r.ShardTotal),
		Traceparent: r.Traceparent, job: j,
	}
}
