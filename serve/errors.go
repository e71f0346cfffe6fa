package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// apiError is an error answer: {"error": msg, "field": field, ...extra}.
type apiError struct {
	code  int
	msg   string
	field string
	extra map[string]any
}

// Error is the message, which names the field at fault.
func (e *apiError) Error() string { return e.msg }

// badField is a 400 naming field.
func badField(field, format string, args ...any) *apiError {
	return &apiError{code: http.StatusBadRequest, msg: field + ": " + fmt.Sprintf(format, args...), field: field}
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(v)
}

func writeError(w http.ResponseWriter, e *apiError) {
	body := map[string]any{"error": e.msg}
	if e.field != "" {
		body["field"] = e.field
	}
	for k, v := range e.extra {
		body[k] = v
	}
	writeJSON(w, e.code, body)
}

// fail writes e and counts it.
func (s *Server) fail(w http.ResponseWriter, e *apiError) {
	s.metrics.requestError(e.code)
	if e.code == http.StatusServiceUnavailable {
		w.Header().Set("Retry-After", "1")
	}
	writeError(w, e)
}

// decodeJSON reads one JSON object into v, refusing unknown fields; its
// errors name the field (413 past the body limit).
func decodeJSON(r *http.Request, v any) *apiError {
	dec := json.NewDecoder(r.Body)
	dec.DisallowUnknownFields()
	err := dec.Decode(v)
	if err == nil {
		if _, err2 := dec.Token(); err2 != io.EOF {
			var mbe *http.MaxBytesError
			if errors.As(err2, &mbe) {
				err = err2
			} else {
				return &apiError{code: http.StatusBadRequest, msg: "body: want a single JSON object, found more after it", field: "body"}
			}
		}
	}
	if err == nil {
		return nil
	}
	var (
		mbe *http.MaxBytesError
		se  *json.SyntaxError
		te  *json.UnmarshalTypeError
	)
	switch {
	case errors.As(err, &mbe):
		return &apiError{code: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("body: larger than the server's limit of %d bytes", mbe.Limit), field: "body"}
	case errors.Is(err, io.EOF):
		return &apiError{code: http.StatusBadRequest, msg: "body: empty; want a JSON object", field: "body"}
	case errors.As(err, &se):
		return &apiError{code: http.StatusBadRequest, msg: fmt.Sprintf("body: invalid JSON at byte %d: %v", se.Offset, se), field: "body"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &apiError{code: http.StatusBadRequest, msg: "body: invalid JSON: unexpected end", field: "body"}
	case errors.As(err, &te):
		field := strings.TrimPrefix(te.Field, "LoadOptions.")
		if field == "" {
			field = "body"
		}
		return &apiError{code: http.StatusBadRequest, msg: fmt.Sprintf("%s: want %s, got JSON %s", field, jsonType(te.Type.String()), te.Value), field: field}
	}
	msg := err.Error()
	if f, ok := strings.CutPrefix(msg, "json: unknown field "); ok {
		f = strings.Trim(f, `"`)
		return &apiError{code: http.StatusBadRequest, msg: fmt.Sprintf("%s: unknown field", f), field: f}
	}
	return &apiError{code: http.StatusBadRequest, msg: "body: " + msg, field: "body"}
}

// jsonType names a Go type as JSON sees it.
func jsonType(t string) string {
	switch {
	case strings.Contains(t, "int"):
		return "an integer"
	case strings.Contains(t, "float"):
		return "a number"
	case t == "string":
		return "a string"
	case t == "bool" || t == "*bool":
		return "true or false"
	}
	return "an object"
}
