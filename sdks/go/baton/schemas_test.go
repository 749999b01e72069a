package baton

import (
	"context"
	"strings"
	"testing"
)

func big(n int) map[string]any {
	return map[string]any{"type": "object", "description": strings.Repeat("x", n)}
}

func noop(name string, schema any) Handler {
	return Handler{Name: name, ParamsSchema: schema, Run: func(_ context.Context, _ *Run) (any, error) { return nil, nil }}
}

// The cases of libs/executor-sdk/src/handler-schemas.spec.ts.
func TestSendableSchemasFollowTheSDKRule(t *testing.T) {
	hs := []Handler{noop("huge", big(16*1024))}
	for _, n := range []string{"h1", "h2", "h3", "h4", "h5"} {
		hs = append(hs, noop(n, big(15_000)))
	}
	kept, leftOut, err := sendableSchemas(hs)
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) != 4 || kept["h1"] == nil || kept["h4"] == nil || kept["h5"] != nil {
		t.Errorf("kept %d schemas, want h1…h4", len(kept))
	}
	if len(leftOut) != 2 || !strings.HasPrefix(leftOut[0], "huge (") || !strings.HasPrefix(leftOut[1], "h5 (") {
		t.Errorf("left out %v", leftOut)
	}
	if _, _, err := sendableSchemas([]Handler{noop("plain", "object")}); err == nil {
		t.Error("a schema that is not a JSON object was accepted")
	}
}

// The whole object's bound, to the byte, as the engine counts it (JSON.stringify: "<&>" stay as they are).
func TestSendableSchemasCountBytesAsJSONStringify(t *testing.T) {
	schemaOf := func(n int) map[string]any {
		return map[string]any{"description": "<&>" + strings.Repeat("x", n), "type": "object"}
	}
	emptyEntry := len(`"h0":{"description":"<&>","type":"object"}`)
	handlersOfSize := func(total int) []Handler {
		var hs []Handler
		rest := total - len("{}") - 4 // four commas
		for i := 0; i < 5; i++ {
			n := 12_000
			if i == 4 {
				n = rest - emptyEntry
			}
			rest -= emptyEntry + n
			hs = append(hs, noop("h"+string(rune('0'+i)), schemaOf(n)))
		}
		return hs
	}
	kept, leftOut, _ := sendableSchemas(handlersOfSize(MaxHandlerSchemasBytes))
	raw, _ := compactJSON(kept)
	if len(leftOut) != 0 || len(raw) != MaxHandlerSchemasBytes {
		t.Errorf("exact: left out %v, %d bytes, want %d", leftOut, len(raw), MaxHandlerSchemasBytes)
	}
	if _, leftOut, _ := sendableSchemas(handlersOfSize(MaxHandlerSchemasBytes + 1)); len(leftOut) != 1 || !strings.HasPrefix(leftOut[0], "h4 (") {
		t.Errorf("one byte over: left out %v, want h4", leftOut)
	}
}
