package baton

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// As libs/protocol's MAX_HANDLER_SCHEMA_BYTES / MAX_HANDLER_SCHEMAS_BYTES (serialised, UTF-8).
const (
	MaxHandlerSchemaBytes  = 16 * 1024
	MaxHandlerSchemasBytes = 60 * 1024
)

// compactJSON serialises v as JSON.stringify does (no HTML escaping), so sizes match the engine's count.
func compactJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Compact(&out, bytes.TrimRight(buf.Bytes(), "\n")); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// sendableSchemas is the heartbeat's handlerSchemas by the SDK's rule
// (libs/executor-sdk/src/handler-schemas.ts): in handler order, a schema over
// MaxHandlerSchemaBytes, or one that would take the whole object past MaxHandlerSchemasBytes, is
// left out (its tasks are saved unchecked) and named in leftOut. An error when a schema is not a
// JSON object: an engine refuses a heartbeat carrying one.
func sendableSchemas(handlers []Handler) (map[string]json.RawMessage, []string, error) {
	kept := map[string]json.RawMessage{}
	var leftOut []string
	total := len("{}")
	for _, h := range handlers {
		if h.ParamsSchema == nil {
			continue
		}
		schema, err := compactJSON(h.ParamsSchema)
		if err != nil || len(schema) == 0 || schema[0] != '{' {
			return nil, nil, fmt.Errorf("handler %q: ParamsSchema must be a JSON schema object", h.Name)
		}
		name, _ := compactJSON(h.Name)
		entry := len(name) + 1 + len(schema)
		if len(kept) > 0 {
			entry++ // the comma
		}
		if len(schema) > MaxHandlerSchemaBytes || total+entry > MaxHandlerSchemasBytes {
			leftOut = append(leftOut, fmt.Sprintf("%s (%d bytes)", h.Name, len(schema)))
			continue
		}
		total += entry
		kept[h.Name] = schema
	}
	if len(kept) == 0 {
		return nil, leftOut, nil
	}
	return kept, leftOut, nil
}
