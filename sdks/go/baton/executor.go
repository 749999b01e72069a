package baton

import (
	"bytes"
	"container/list"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

const (
	maxRunsPerDispatchBatch = 100
	recentlyFinishedLimit   = 10_000
	maxResultBytes          = 64_000
	maxHeartbeatActive      = 1000
	maxStartInMs            = 60_000 // the furthest ahead of its instant an engine sends a run (protocol 2)
)

// Executor runs handlers for engines: it verifies their signed requests, answers a dispatch
// 202 at once and runs the handler on its pool, calls back (signed, retried), heartbeats.
type Executor struct {
	opts     Options
	handlers map[string]Handler
	names    []string
	schemas  map[string]json.RawMessage
	client   *http.Client
	spool    *spool

	mu            sync.Mutex
	wakeWorker    *sync.Cond // a job queued, or the executor stopping
	changed       *sync.Cond // a job or a pending callback went away (shutdown waits on it)
	jobs          map[string]*job
	line          taskLines // runs due, waiting for a worker
	ahead         sentAhead
	contact       contactLease // whether runs sent ahead may start (protocol 3)
	startsFirst   startsFirst  // final callbacks held while runs wait in line
	running       int
	finished      map[string]*list.Element // → finishedRun, oldest first in finishedOrder
	finishedOrder *list.List
	pending       map[string]*callback        // final callbacks no engine has taken yet
	batches       map[string]*callbackBatches // by engine URL
	creditSeq     int64
	draining      bool
	executorID    *int64
	lastGood      string
	asideUntil    map[string]time.Time // engines set aside as slow (setAside), until when

	startedAt int64
	heartbeat time.Duration
	listener  net.Listener
	server    *http.Server
	url       string
	stopped   chan struct{}
	retryNow  chan struct{} // closed and replaced when an engine takes a callback: retry the others now
	requests  chan struct{} // a slot per final callback request in flight (CallbackConcurrency)
	stopOnce  sync.Once
	// beatMu keeps one heartbeat on the wire at a time, so the engine receives them in the order
	// they were composed: a periodic beat composed before SIGTERM must not land after the last word.
	beatMu   sync.Mutex
	lastWord bool // the final heartbeat is sent: no beat may follow it (guarded by beatMu)
}

type finishedRun struct {
	key        string
	runID      int64
	attempt    int64
	outcome    string
	startedAt  int64
	finishedAt int64
}

// New makes an executor for the handlers (names must be unique). Start it with Start.
func New(opts Options, handlers ...Handler) (*Executor, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	e := &Executor{
		opts: o, handlers: map[string]Handler{}, jobs: map[string]*job{}, line: newTaskLines(), ahead: newSentAhead(), finished: map[string]*list.Element{},
		finishedOrder: list.New(), pending: map[string]*callback{}, batches: map[string]*callbackBatches{}, asideUntil: map[string]time.Time{}, startedAt: nowMs(), heartbeat: o.HeartbeatInterval,
		stopped: make(chan struct{}), retryNow: make(chan struct{}), requests: make(chan struct{}, o.CallbackConcurrency),
		client: &http.Client{Timeout: o.RequestTimeout, Transport: &http.Transport{
			Proxy: http.ProxyFromEnvironment, MaxIdleConnsPerHost: o.CallbackConcurrency, IdleConnTimeout: 60 * time.Second,
		}},
	}
	e.wakeWorker = sync.NewCond(&e.mu)
	e.changed = sync.NewCond(&e.mu)
	for _, h := range handlers {
		if strings.TrimSpace(h.Name) == "" || h.Run == nil {
			return nil, fmt.Errorf("executor: each handler needs a Name and a Run function")
		}
		if _, dup := e.handlers[h.Name]; dup {
			return nil, fmt.Errorf("executor: two handlers are named %q", h.Name)
		}
		e.handlers[h.Name] = h
		e.names = append(e.names, h.Name)
	}
	sort.Strings(e.names)
	schemas, leftOut, err := sendableSchemas(handlers)
	if err != nil {
		return nil, err
	}
	if len(leftOut) > 0 {
		o.Logger.Printf("params schemas not sent (their tasks are saved unchecked): %s", strings.Join(leftOut, ", "))
	}
	e.schemas = schemas
	return e, nil
}

// URL is the base URL engines call (once started).
func (e *Executor) URL() string { return e.url }

func (e *Executor) warn(format string, args ...any) { e.opts.Logger.Printf(format, args...) }

// Start listens on Host:Port, replays the spool, starts the workers, the heartbeats and the
// interim callbacks. The executor serves until Shutdown.
func (e *Executor) Start() error {
	if e.opts.SpoolFile != "" {
		s, replay, err := openSpool(e.opts.SpoolFile, e.opts.DefaultSpool)
		if err != nil {
			return err
		}
		e.spool = s
		e.opts.SpoolFile = s.path
		for _, cb := range replay {
			e.pending[runKey(cb.RunID, cb.Attempt)] = cb
		}
	}
	l, err := net.Listen("tcp", net.JoinHostPort(e.opts.Host, fmt.Sprint(e.opts.Port)))
	if err != nil {
		if e.spool != nil {
			e.spool.close()
		}
		return fmt.Errorf("executor: listen on %s:%d: %w", e.opts.Host, e.opts.Port, err)
	}
	e.listener = l
	e.url = e.opts.PublicURL
	if e.url == "" {
		e.url = "http://" + l.Addr().String()
	}
	e.server = &http.Server{Handler: e, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 120 * time.Second}
	go func() { _ = e.server.Serve(l) }()
	for i := 0; i < e.opts.Concurrency; i++ {
		go e.worker()
	}
	e.mu.Lock()
	for _, cb := range e.pending {
		go e.deliver(cb)
	}
	e.mu.Unlock()
	go e.heartbeatLoop()
	go e.interimLoop()
	return nil
}

// ---- runs ----

func (e *Executor) worker() {
	e.mu.Lock()
	for {
		for e.line.len() == 0 && !e.isStopped() {
			e.wakeWorker.Wait()
		}
		if e.isStopped() {
			e.mu.Unlock()
			return
		}
		j := e.line.pop()
		e.lineShrank()
		e.running++
		e.mu.Unlock()
		e.execute(j)
		e.mu.Lock()
		e.running--
		e.changed.Broadcast()
	}
}

func (e *Executor) isStopped() bool {
	select {
	case <-e.stopped:
		return true
	default:
		return false
	}
}

type handlerReturn struct {
	result any
	err    error
}

func (e *Executor) execute(j *job) {
	if reason := j.reason(); reason != "" {
		e.finish(j, outcome{kind: "ABORTED", err: abortMessages[reason] + " (before it started)"}, 1)
		return
	}
	if nowMs() >= j.req.Deadline {
		j.abort("DEADLINE")
		e.finish(j, outcome{kind: "ABORTED", err: "aborted: the deadline passed before the handler started"}, 1)
		return
	}
	e.mu.Lock()
	j.state, j.startedAt = "RUNNING", nowMs()
	e.mu.Unlock()
	timer := time.AfterFunc(time.Until(time.UnixMilli(j.req.Deadline)), func() { j.abort("DEADLINE") })
	defer timer.Stop()
	returned := make(chan handlerReturn, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				returned <- handlerReturn{err: fmt.Errorf("panic: %v\n%s", p, debug.Stack())}
			}
		}()
		ctx := j.ctx
		if j.req.Traceparent != "" {
			ctx = context.WithValue(ctx, traceparentKey{}, j.req.Traceparent)
		}
		result, err := e.handlers[j.req.Handler].Run(ctx, j.req.run(j))
		returned <- handlerReturn{result, err}
	}()
	var r handlerReturn
	select {
	case r = <-returned:
	case <-j.ctx.Done():
		select {
		case r = <-returned:
		case <-time.After(e.opts.AbortGrace):
			// Reported ABORTED now; the worker stays taken until the handler returns.
			e.finish(j, outcome{kind: "ABORTED", err: abortMessages[j.reason()] + fmt.Sprintf(" (the handler did not return within %s)", e.opts.AbortGrace)}, 0)
			<-returned
			return
		}
	}
	j.cancel()
	e.finish(j, outcomeOf(j, r), 1)
}

type outcome struct {
	kind         string // SUCCEEDED, FAILED, ABORTED
	result       json.RawMessage
	err          string
	notRetryable bool
}

func outcomeOf(j *job, r handlerReturn) outcome {
	if reason := j.reason(); reason != "" {
		return outcome{kind: "ABORTED", err: abortMessages[reason]}
	}
	if r.err != nil {
		return outcome{kind: "FAILED", err: errorText(r.err), notRetryable: IsNonRetryable(r.err)}
	}
	if r.result == nil {
		return outcome{kind: "SUCCEEDED"}
	}
	raw, err := json.Marshal(r.result)
	if err != nil {
		return outcome{kind: "FAILED", err: "result: not JSON-serialisable: " + err.Error(), notRetryable: true}
	}
	if len(raw) > maxResultBytes {
		return outcome{kind: "FAILED", err: fmt.Sprintf("result: %d bytes serialised, more than the %d an engine stores", len(raw), maxResultBytes), notRetryable: true}
	}
	return outcome{kind: "SUCCEEDED", result: raw}
}

// errorText is a FAILED run's error: its first line says what went wrong (alarms show it).
func errorText(err error) string {
	text := err.Error()
	if IsNonRetryable(err) {
		text = "NonRetryableError: " + text
	}
	if text == "" {
		text = fmt.Sprintf("%T", err)
	}
	if len(text) > 8192 {
		text = text[:8192]
	}
	return text
}

// finish builds the final callback and hands it to the sender. freeing: 1 when a worker ran or
// picked the job (its place is about to be free, the callback's credit counts it), else 0.
func (e *Executor) finish(j *job, o outcome, freeing int) {
	req := j.req
	j.sendMu.Lock() // waits for an interim send in flight, so no line goes twice
	rep := j.pending()
	j.over = true
	j.sendMu.Unlock()
	cb := &callback{RunID: req.RunID, Attempt: req.Attempt, TenantID: req.TenantID, Outcome: o.kind, FinishedAt: nowMs(),
		Result: o.result, Error: o.err, Logs: rep.logs, Alarms: rep.alarms, Progress: rep.progress, URLs: req.CallbackURLs, Traceparent: req.Traceparent}
	if o.kind == "FAILED" && o.notRetryable {
		f := false
		cb.Retryable = &f
	}
	if o.kind == "ABORTED" {
		cb.AbortReason = j.reason()
	}
	e.mu.Lock()
	if j.startedAt != 0 {
		cb.StartedAt = j.startedAt
	}
	cb.ExecutorID = e.executorID
	credit, seq := e.credit(freeing)
	cb.Credit, cb.CreditSeq = &credit, seq
	delete(e.jobs, j.key)
	e.remember(finishedRun{key: j.key, runID: req.RunID, attempt: req.Attempt, outcome: o.kind, startedAt: j.startedAt, finishedAt: cb.FinishedAt})
	e.pending[j.key] = cb
	e.changed.Broadcast()
	e.mu.Unlock()
	if e.spool != nil {
		e.spool.put(cb, e.warn)
	}
	go e.deliver(cb)
}

// remember keeps the newest finished attempts (repeated dispatches, status queries). Under the lock.
func (e *Executor) remember(f finishedRun) {
	e.finished[f.key] = e.finishedOrder.PushBack(&f)
	for e.finishedOrder.Len() > recentlyFinishedLimit {
		oldest := e.finishedOrder.Front()
		e.finishedOrder.Remove(oldest)
		delete(e.finished, oldest.Value.(*finishedRun).key)
	}
}

// credit: how many more runs this executor would take now (free workers plus free queue
// places), with a strictly increasing creditSeq (microseconds) so engines keep the newest. Under the lock.
func (e *Executor) credit(freeing int) (int, int64) {
	seq := time.Now().UnixMicro()
	if seq <= e.creditSeq {
		seq = e.creditSeq + 1
	}
	e.creditSeq = seq
	c := e.opts.Concurrency + e.opts.QueueLimit - e.running - e.queued() + freeing
	if c < 0 {
		c = 0
	}
	return c, seq
}

// queued: the runs accepted and not started, in line or sent ahead and waiting for their instant. Under the lock.
func (e *Executor) queued() int { return e.line.len() + e.ahead.count }

// startDue puts the runs sent ahead for the instant at in line once it has come: a free worker
// takes them at once, else they wait behind the runs already in it. Outside the sent-ahead lease
// they are let go instead, never started.
func (e *Executor) startDue(at int64) {
	e.mu.Lock()
	jobs := e.ahead.due(at)
	if len(jobs) == 0 {
		e.mu.Unlock()
		return
	}
	if now := time.Now(); !e.contact.fresh(now) {
		why := e.contact.silence(now)
		e.mu.Unlock()
		e.letGo(jobs, why)
		return
	}
	for _, j := range jobs {
		e.line.push(j)
	}
	e.wakeWorker.Broadcast()
	e.mu.Unlock()
}

// lineShrank lets the held final callbacks go once no run waits in line. Under the lock.
func (e *Executor) lineShrank() {
	if e.line.len() == 0 {
		e.startsFirst.release()
	}
}

// unqueue takes a run that has not started out of the line or out of those sent ahead; false
// when it is in neither (a worker has it). Under the lock.
func (e *Executor) unqueue(j *job) bool {
	if e.ahead.remove(j) {
		return true
	}
	if e.line.remove(j) {
		e.lineShrank()
		return true
	}
	return false
}

// ---- engine requests (incoming) ----

type dispatchAck struct {
	Accepted  bool  `json:"accepted"`
	RunID     int64 `json:"runId"`
	Attempt   int64 `json:"attempt"`
	Credit    int   `json:"credit"`
	CreditSeq int64 `json:"creditSeq"`
}

// dispatch judges one run; arrivedAt (epoch ms) is when its request began to be served.
func (e *Executor) dispatch(raw json.RawMessage, arrivedAt int64) (int, any) {
	req, bad := parseDispatch(raw)
	if bad != nil {
		return 400, bad
	}
	if req.TenantID != e.opts.Tenant {
		return 400, badRequest("tenantId", "tenantId: not the tenant of this executor")
	}
	req.Deadline = req.localDeadline(arrivedAt)
	e.mu.Lock()
	defer e.mu.Unlock()
	key := req.key()
	_, known := e.jobs[key]
	if _, done := e.finished[key]; known || done {
		return 202, e.ack(req) // this attempt is known: it is not run twice
	}
	if e.draining {
		return 503, &refusal{Reason: "SHUTTING_DOWN", Message: "the executor is shutting down"}
	}
	if _, ok := e.handlers[req.Handler]; !ok {
		return 404, &refusal{Reason: "UNKNOWN_HANDLER", Field: "handler",
			Message: fmt.Sprintf("handler: no handler %q here (this executor has: %s)", req.Handler, strings.Join(e.names, ", "))}
	}
	if req.StartInMs > 0 {
		// Sent ahead (protocol 2): it starts startInMs after its request's arrival on this
		// machine's clock (the engine's need not agree). Until then it holds a queue place, taken
		// while the room the credit advertises is not all spoken for.
		if e.running+e.queued() >= e.opts.Concurrency+e.opts.QueueLimit {
			return 429, e.busy()
		}
		j := newJob(req, e.warn)
		e.jobs[key] = j
		e.ahead.add(j, arrivedAt+req.StartInMs, e.startDue)
		return 202, e.ack(req)
	}
	idle := e.opts.Concurrency - e.running
	if idle < 0 {
		idle = 0
	}
	// A run due now takes a free worker even when runs sent ahead hold the queue places: at their
	// instant those find the workers busy and wait in line, as they would had they been sent then.
	if e.line.len() >= idle && e.line.len()-idle+e.ahead.count >= e.opts.QueueLimit {
		return 429, e.busy()
	}
	j := newJob(req, e.warn)
	e.jobs[key] = j
	e.line.push(j)
	e.wakeWorker.Signal()
	return 202, e.ack(req)
}

// busy refuses a run there is no room for. Under the lock.
func (e *Executor) busy() *refusal {
	return &refusal{Reason: "BUSY", Message: fmt.Sprintf("all %d workers are busy and %d runs are queued", e.opts.Concurrency, e.queued())}
}

func (e *Executor) ack(req dispatchRequest) dispatchAck {
	credit, seq := e.credit(0)
	return dispatchAck{Accepted: true, RunID: req.RunID, Attempt: req.Attempt, Credit: credit, CreditSeq: seq}
}

type batchResult struct {
	RunID   int64 `json:"runId"`
	Attempt int64 `json:"attempt"`
	Status  int   `json:"status"`
	Body    any   `json:"body"`
}

// dispatchBatch judges each run as dispatch would, in order; a wrong field is named with its index.
// Every run counts from the request's arrival, not from its turn in the batch.
func (e *Executor) dispatchBatch(raw json.RawMessage, arrivedAt int64) (int, any) {
	var body struct {
		Runs *[]json.RawMessage `json:"runs"`
	}
	if err := json.Unmarshal(raw, &body); err != nil || body.Runs == nil {
		return 400, badRequest("runs", "runs: must be an array of runs")
	}
	runs := *body.Runs
	if len(runs) < 1 || len(runs) > maxRunsPerDispatchBatch {
		return 400, badRequest("runs", fmt.Sprintf("runs: must hold 1 to %d runs (got %d)", maxRunsPerDispatchBatch, len(runs)))
	}
	results := make([]batchResult, 0, len(runs))
	for i, run := range runs {
		status, answer := e.dispatch(run, arrivedAt)
		if r, ok := answer.(*refusal); ok && r.Field != "" {
			r.Field = fmt.Sprintf("runs[%d].%s", i, r.Field)
		}
		var ids struct {
			RunID   any `json:"runId"`
			Attempt any `json:"attempt"`
		}
		_ = json.Unmarshal(run, &ids)
		results = append(results, batchResult{RunID: wholeNumber(ids.RunID), Attempt: wholeNumber(ids.Attempt), Status: status, Body: answer})
	}
	return 200, map[string]any{"results": results}
}

func wholeNumber(v any) int64 {
	if f, ok := v.(float64); ok && f == float64(int64(f)) {
		return int64(f)
	}
	return 0
}

type abortAck struct {
	Aborted bool   `json:"aborted"`
	RunID   int64  `json:"runId"`
	Attempt int64  `json:"attempt"`
	State   string `json:"state"`
}

func (e *Executor) abortRun(raw json.RawMessage, pathRunID int64) (int, any) {
	var body map[string]json.RawMessage
	if err := json.Unmarshal(raw, &body); err != nil || body == nil {
		return 400, badRequest("body", "body: must be a JSON object")
	}
	var ids [2]int64
	for i, field := range []string{"runId", "attempt"} {
		v, err := strconv.ParseInt(string(bytes.TrimSpace(body[field])), 10, 64)
		if err != nil || v < 1 {
			return 400, badRequest(field, field+": must be an integer >= 1")
		}
		ids[i] = v
	}
	if ids[0] != pathRunID {
		return 400, badRequest("runId", fmt.Sprintf("runId: must match the run id of the path (%d)", pathRunID))
	}
	var reason string
	_ = json.Unmarshal(body["reason"], &reason)
	if reason != "TIMEOUT" && reason != "CANCELLED" && reason != "REPLACED" {
		return 400, badRequest("reason", "reason: must be one of TIMEOUT, CANCELLED, REPLACED")
	}
	key := runKey(ids[0], ids[1])
	e.mu.Lock()
	j, ok := e.jobs[key]
	if !ok {
		_, done := e.finished[key]
		e.mu.Unlock()
		state := "UNKNOWN"
		if done {
			state = "FINISHED"
		}
		return 404, abortAck{RunID: ids[0], Attempt: ids[1], State: state}
	}
	state := j.state
	j.abort(reason)
	dropped := e.unqueue(j)
	e.mu.Unlock()
	if dropped {
		e.finish(j, outcome{kind: "ABORTED", err: abortMessages[reason] + " (before it started)"}, 0)
	}
	return 202, abortAck{Aborted: true, RunID: ids[0], Attempt: ids[1], State: state}
}

type attemptStatus struct {
	Attempt         int64  `json:"attempt"`
	State           string `json:"state"`
	Outcome         string `json:"outcome,omitempty"`
	StartedAt       int64  `json:"startedAt,omitempty"`
	FinishedAt      int64  `json:"finishedAt,omitempty"`
	CallbackPending *bool  `json:"callbackPending,omitempty"`
}

func (e *Executor) statusOf(runID int64) any {
	attempts := []attemptStatus{}
	e.mu.Lock()
	for _, j := range e.jobs {
		if j.req.RunID == runID {
			attempts = append(attempts, attemptStatus{Attempt: j.req.Attempt, State: j.state, StartedAt: j.startedAt})
		}
	}
	for el := e.finishedOrder.Front(); el != nil; el = el.Next() {
		f := el.Value.(*finishedRun)
		if _, live := e.jobs[f.key]; f.runID == runID && !live {
			_, waiting := e.pending[f.key]
			attempts = append(attempts, attemptStatus{Attempt: f.attempt, State: "FINISHED", Outcome: f.outcome, StartedAt: f.startedAt, FinishedAt: f.finishedAt, CallbackPending: &waiting})
		}
	}
	e.mu.Unlock()
	sort.Slice(attempts, func(a, b int) bool { return attempts[a].Attempt < attempts[b].Attempt })
	return map[string]any{"runId": runID, "attempts": attempts}
}
