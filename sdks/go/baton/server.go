package baton

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
)

const maxBodyBytes = 1 << 20

var (
	routeRun   = regexp.MustCompile(`^/baton/runs/(\d{1,15})$`)
	routeAbort = regexp.MustCompile(`^/baton/runs/(\d{1,15})/abort$`)
)

// ServeHTTP answers the executor routes under /baton/ (mount the Executor in a mux of your own
// app, under any prefix: the signed path is the protocol path from /baton/ on).
func (e *Executor) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Before the body is read: a run sent ahead counts its wait from here, so reading and
	// judging a large batch on a busy machine does not start its runs late.
	arrivedAt := nowMs()
	path := r.URL.Path
	if i := strings.Index(path, "/baton/"); i > 0 {
		path = path[i:]
	}
	raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBodyBytes))
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			reply(w, 413, badRequest("body", fmt.Sprintf("body: larger than %d bytes", maxBodyBytes)))
		} else {
			reply(w, 400, badRequest("body", "body: could not be read: "+err.Error()))
		}
		return
	}
	if path == "/baton/health" && r.Method == http.MethodGet {
		e.mu.Lock()
		status, inFlight := "UP", e.running+e.queued()
		if e.draining {
			status = "DRAINING"
		}
		e.mu.Unlock()
		reply(w, 200, map[string]any{"status": status, "capacity": e.opts.Concurrency, "inFlight": inFlight})
		return
	}
	abortMatch, runMatch := routeAbort.FindStringSubmatch(path), routeRun.FindStringSubmatch(path)
	route, wanted := "", http.MethodPost
	switch {
	case path == "/baton/runs":
		route = "dispatch"
	case path == "/baton/runs/batch":
		route = "batch"
	case abortMatch != nil:
		route = "abort"
	case runMatch != nil:
		route, wanted = "status", http.MethodGet
	default:
		reply(w, 404, &refusal{Reason: "BAD_REQUEST", Message: "no executor route " + path})
		return
	}
	if r.Method != wanted {
		reply(w, 405, &refusal{Reason: "BAD_REQUEST", Message: fmt.Sprintf("use %s %s", wanted, path)})
		return
	}
	// Another tenant's request is refused as that, before its signature: it is signed with that
	// tenant's secret, which this executor has not (docs/EXECUTOR-PROTOCOL.md, "The signature").
	if tenant := r.Header.Values(HeaderTenant); len(tenant) == 0 {
		reply(w, 401, &refusal{Reason: "UNAUTHORIZED", Message: "signature: missing x-baton-tenant header"})
		return
	} else if len(tenant) != 1 || tenant[0] != e.opts.Tenant {
		reply(w, 401, &refusal{Reason: "UNAUTHORIZED", Field: "x-baton-tenant", Message: "x-baton-tenant: this executor serves another tenant"})
		return
	}
	if problem := Verify(e.opts.Secret, r.Header.Get(HeaderTimestamp), r.Header.Get(HeaderSignature), r.Method, path, raw, nowMs(), DefaultMaxSkewMs); problem != "" {
		reply(w, 401, &refusal{Reason: "UNAUTHORIZED", Message: problem.message()})
		return
	}
	if route == "status" {
		id, _ := strconv.ParseInt(runMatch[1], 10, 64)
		reply(w, 200, e.statusOf(id))
		return
	}
	if !json.Valid(raw) {
		reply(w, 400, badRequest("body", "body: malformed JSON"))
		return
	}
	var status int
	var answer any
	switch route {
	case "abort":
		id, _ := strconv.ParseInt(abortMatch[1], 10, 64)
		status, answer = e.abortRun(raw, id)
	case "batch":
		status, answer = e.dispatchBatch(raw, arrivedAt)
	default:
		status, answer = e.dispatch(raw, arrivedAt)
	}
	reply(w, status, answer)
}

func reply(w http.ResponseWriter, status int, body any) {
	data, err := compactJSON(body)
	if err != nil {
		status, data = 500, []byte(`{"accepted":false,"reason":"BAD_REQUEST","message":"answer not serialisable"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(status)
	_, _ = w.Write(data)
}
