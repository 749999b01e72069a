package baton

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"time"
)

// Client submits work to Baton from a Go service — a run of a task now, or an event — through
// the console's public API with a tenant API key (Settings → API keys, role TENANT_ADMIN), as the
// Node SDK's BatonClient does:
//
//	c, err := baton.NewClient("http://baton-console:8080", os.Getenv("BATON_API_KEY"))
//	run, created, err := c.Trigger(ctx, taskID, baton.SubmitRun{Params: order, IdempotencyKey: "order-42"})
//	event, err := c.EmitEvent(ctx, baton.Event{Name: "order.paid", Payload: map[string]any{"order": order}, IdempotencyKey: "paid-42"})
//	run, created, err = c.Submit(ctx, taskID, baton.SubmitRun{Params: order}) // from any number of goroutines: sent together
//
// Submit and Emit are how to send runs and events one at a time at any rate (submit.go);
// SubmitBatch and EmitEvents send many in one request. A handler emits events with a Client of its own service's key. A 429 or 503 is sent again
// after its Retry-After (Retries times, each wait at most MaxRetryWait); a request that got no
// answer is sent again only when it carries an idempotency key (it cannot then make a second run
// or event); one that reached no console (its connection could not be opened) always is, at once
// to the next console when the client names several. What the console refuses for good is an
// *APIError naming the fields.
type Client struct {
	bases []*url.URL
	// current is the index in bases requests go to.
	current atomic.Int32
	apiKey  string
	// HTTP is the client requests go through (default: keep-alive connections, 30 s a request).
	HTTP *http.Client
	// Retries is how often a refused (429, 503) or unanswered resendable request is sent again (default 3).
	Retries int
	// MaxRetryWait caps each wait before sending again, whatever Retry-After says (default 5 s).
	MaxRetryWait time.Duration
	// MaxWaiting is how many runs (events) Submit (Emit) lets wait to be sent; past it they are refused at once with 429 CLIENT_BACKLOG (default 20,000).
	MaxWaiting int

	sendLanes
}

// NewClient is a Client of the console at baseURL (http or https) with a tenant API key.
// baseURL may name a cluster's consoles or nodes, comma separated
// ("http://node-a:8080,http://node-b:8080"): requests go to the first while it takes
// connections, and at once to the next when a connection to it cannot be opened (a console down
// or starting again), where they stay.
func NewClient(baseURL, apiKey string) (*Client, error) {
	var bases []*url.URL
	for _, one := range strings.Split(baseURL, ",") {
		u, err := url.Parse(strings.TrimRight(strings.TrimSpace(one), "/"))
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return nil, fmt.Errorf("baton: the console URL %q is not an http(s) URL", one)
		}
		bases = append(bases, u)
	}
	if apiKey == "" {
		return nil, fmt.Errorf("baton: an API key is needed (Settings → API keys)")
	}
	return &Client{bases: bases, apiKey: apiKey, HTTP: &http.Client{Timeout: 30 * time.Second}, Retries: 3, MaxRetryWait: 5 * time.Second, MaxWaiting: 20_000}, nil
}

// neverSent tells a request that reached no console: its connection could not be opened.
func neverSent(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// SubmitRun is a run asked for: its params (nil: the task's), its flow's params, and an
// idempotency key (one run per key and task, however often it is sent: 1 to 62 of
// A-Z a-z 0-9 - _ . : ~).
type SubmitRun struct {
	Params         any
	FlowParams     any
	IdempotencyKey string
}

// SubmittedRun is a run as the console answers it (the fields a submitter needs).
type SubmittedRun struct {
	ID        int64  `json:"id"`
	TaskID    int64  `json:"taskId"`
	State     string `json:"state"`
	CreatedAt int64  `json:"createdAt"`
}

// Event is one event: a name (1 to 100 of A-Z a-z 0-9 . _ - :), a JSON object payload (at most
// 64,000 bytes; nil: {}), and an optional idempotency key (one event per tenant and key).
type Event struct {
	Name           string         `json:"name"`
	Payload        map[string]any `json:"payload,omitempty"`
	IdempotencyKey string         `json:"idempotencyKey,omitempty"`
}

// EmittedEvent is an event as stored: its id and the runs it started; Created false when its
// idempotency key was used before (this is the first event sent under it).
type EmittedEvent struct {
	ID      int64   `json:"id"`
	Name    string  `json:"name"`
	RunIDs  []int64 `json:"runIds"`
	Created bool    `json:"created"`
}

// FieldProblem is a field the console names in a refusal, and why.
type FieldProblem struct {
	Field  string `json:"field"`
	Reason string `json:"reason"`
}

// APIError is a refusal of the console (Status 0: no answer came): its stable Code
// (VALIDATION_FAILED, NOT_FOUND, RATE_LIMITED, UNAUTHORIZED, …, or UNREACHABLE) and the fields at fault.
type APIError struct {
	Status  int
	Code    string
	Message string
	Errors  []FieldProblem
}

func (e *APIError) Error() string {
	if len(e.Errors) == 0 {
		return fmt.Sprintf("baton: %d %s: %s", e.Status, e.Code, e.Message)
	}
	parts := make([]string, len(e.Errors))
	for i, p := range e.Errors {
		parts[i] = p.Field + " " + p.Reason
	}
	return fmt.Sprintf("baton: %d %s: %s (%s)", e.Status, e.Code, e.Message, strings.Join(parts, "; "))
}

// Trigger asks for a run of the task now (POST /api/tasks/{id}/trigger); with an idempotency key
// used before for the task, the run it made, created false.
func (c *Client) Trigger(ctx context.Context, taskID int64, run SubmitRun) (SubmittedRun, bool, error) {
	body := map[string]any{}
	if run.Params != nil {
		body["params"] = run.Params
	}
	if run.FlowParams != nil {
		body["flowParams"] = run.FlowParams
	}
	headers := map[string]string{}
	if run.IdempotencyKey != "" {
		headers["Idempotency-Key"] = run.IdempotencyKey
	}
	var made SubmittedRun
	status, err := c.post(ctx, fmt.Sprintf("/api/tasks/%d/trigger", taskID), body, headers, run.IdempotencyKey != "", &made)
	return made, status == http.StatusCreated, err
}

// EmitEvent sends one event (POST /api/events): the runs it started.
func (c *Client) EmitEvent(ctx context.Context, event Event) (EmittedEvent, error) {
	var stored EmittedEvent
	_, err := c.post(ctx, "/api/events", event, nil, event.IdempotencyKey != "", &stored)
	return stored, err
}

// post sends body as JSON and decodes a 2xx answer into out; refusals become *APIError.
func (c *Client) post(ctx context.Context, path string, body any, headers map[string]string, resendable bool, out any) (int, error) {
	payload, err := json.Marshal(body)
	if err != nil {
		return 0, fmt.Errorf("baton: the request body is not JSON: %w", err)
	}
	hops := 0
	for attempt := 0; ; attempt++ {
		at := c.current.Load()
		status, answer, wait, err := c.send(ctx, c.bases[at], path, payload, headers)
		if err != nil {
			unsent := neverSent(err)
			if unsent {
				// The next console, unless another request moved on already.
				c.current.CompareAndSwap(at, (at+1)%int32(len(c.bases)))
				if hops++; hops < len(c.bases) {
					attempt--
					continue
				}
			}
			if !(resendable || unsent) || attempt >= c.Retries {
				return 0, &APIError{Status: 0, Code: "UNREACHABLE", Message: err.Error()}
			}
		} else if status < 400 {
			if err := json.Unmarshal(answer, out); err != nil {
				return status, fmt.Errorf("baton: the console's answer is not the expected JSON: %w", err)
			}
			return status, nil
		} else if (status != http.StatusTooManyRequests && status != http.StatusServiceUnavailable) || attempt >= c.Retries {
			return status, apiRefusal(status, answer)
		}
		hops = 0
		if wait <= 0 {
			wait = 100 * time.Millisecond << attempt
		}
		if wait > c.MaxRetryWait {
			wait = c.MaxRetryWait
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return 0, ctx.Err()
		case <-timer.C:
		}
	}
}

// send is one POST to the console at base: the answer's status and body, and how long its Retry-After asks to wait.
func (c *Client) send(ctx context.Context, base *url.URL, path string, payload []byte, headers map[string]string) (int, []byte, time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, base.String()+path, bytes.NewReader(payload))
	if err != nil {
		return 0, nil, 0, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-API-Key", c.apiKey)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		return 0, nil, 0, err
	}
	defer res.Body.Close()
	answer, err := io.ReadAll(io.LimitReader(res.Body, 16<<20))
	if err != nil {
		return 0, nil, 0, err
	}
	var wait time.Duration
	if res.StatusCode == http.StatusTooManyRequests || res.StatusCode == http.StatusServiceUnavailable {
		wait = retryAfterValue(res.Header.Get("Retry-After"))
	}
	return res.StatusCode, answer, wait, nil
}

// apiRefusal is the console's error body as an *APIError (a proxy's page as its message).
func apiRefusal(status int, answer []byte) *APIError {
	var body struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Errors  []FieldProblem `json:"errors"`
	}
	if json.Unmarshal(answer, &body) != nil || body.Message == "" {
		body.Message = strings.TrimSpace(string(answer))
	}
	if body.Code == "" {
		body.Code = fmt.Sprintf("HTTP_%d", status)
	}
	return &APIError{Status: status, Code: body.Code, Message: body.Message, Errors: body.Errors}
}
