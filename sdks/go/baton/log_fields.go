package baton

import "fmt"

// runFields is what the SDK appends to its own log lines about a run the engines trace: the run's
// id and attempt, and its trace_id and span_id (the engine's span the run was dispatched under,
// which a handler's spans nest under), as key=value pairs with the Node SDK's field names, so a
// log pipeline can join the line to the run's trace. "" for an untraced run.
func runFields(runID, attempt int64, traceparent string) string {
	if !traceparentPattern.MatchString(traceparent) {
		return ""
	}
	return fmt.Sprintf(" runId=%d attempt=%d trace_id=%s span_id=%s", runID, attempt, traceparent[3:35], traceparent[36:52])
}
