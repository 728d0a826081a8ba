package agent

import (
	"fmt"
	"strings"

	"google.golang.org/genai"
)

// A ModelError is a model call the API refused, told as one sentence that
// a user and a model can read ("model "gemini-2.5-flash" is not available
// to this API key: …; models it can use: …"), never genai's struct dump.
// It wraps the genai.APIError, so errors.As finds it.
type ModelError struct {
	// Model is the model that was called.
	Model string
	// API is the API's error: its code, status, message and details.
	API genai.APIError
	// Available, for a model the API did not find, lists the models the
	// key can use (the adapter asks the API once, then).
	Available []string
}

// Unwrap returns the API's error.
func (e *ModelError) Unwrap() error { return e.API }

// Error tells what happened in a sentence.
func (e *ModelError) Error() string {
	api := e.API
	msg := oneLine(api.Message, 400)
	status := strings.TrimSpace(fmt.Sprintf("%d %s", api.Code, api.Status))
	says := func(s string) string {
		if msg == "" {
			return s
		}
		return s + ": " + msg
	}
	q := quotaOf(api)
	switch {
	case api.Code == 404:
		s := says(fmt.Sprintf("model %q is not available to this API key", e.Model))
		if len(e.Available) > 0 {
			s = strings.TrimSuffix(s, ".") + "; models it can use: " + listNames(e.Available, 12)
		}
		return s
	case api.Code == 429 && q.perDay:
		return says(fmt.Sprintf("the daily quota of this API key for model %q is used up (%s); wait until it resets, or choose another model. The API said", e.Model, strings.Join(q.ids, ", ")))
	case api.Code == 429:
		return says(fmt.Sprintf("the Gemini API's rate limit for model %q was reached (%s)", e.Model, status))
	case api.Code == 503:
		return says(fmt.Sprintf("model %q is overloaded (%s)", e.Model, status))
	case api.Code == 408 || api.Code == 504:
		return says(fmt.Sprintf("the call to model %q timed out (%s)", e.Model, status))
	case api.Code >= 500:
		return says(fmt.Sprintf("the Gemini API failed (%s)", status))
	case api.Code == 401 || api.Code == 403:
		return says(fmt.Sprintf("the Gemini API refused the credentials (%s)", status))
	case api.Code == 400:
		return says(fmt.Sprintf("the Gemini API refused the request to model %q (%s)", e.Model, status))
	}
	return says(fmt.Sprintf("the Gemini API answered %s", status))
}

// listNames is "a, b, c" with at most n names, then how many more.
func listNames(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
}

// oneLine collapses s's white space, newlines included, and cuts it at n
// runes.
func oneLine(s string, n int) string {
	return shortText(strings.Join(strings.Fields(s), " "), n)
}

// quota is what an error's details say about the quotas a call exceeded.
type quota struct {
	ids       []string // the quota ids, as the API names them
	perDay    bool     // one is a daily quota: waiting minutes will not help
	perMinute bool
}

// quotaOf reads the google.rpc.QuotaFailure and ErrorInfo details of e.
func quotaOf(e genai.APIError) quota {
	var q quota
	add := func(id string) {
		if id == "" {
			return
		}
		q.ids = append(q.ids, id)
		switch {
		case strings.Contains(id, "PerDay") || strings.Contains(id, "Daily"):
			q.perDay = true
		case strings.Contains(id, "PerMinute"):
			q.perMinute = true
		}
	}
	for _, d := range e.Details {
		typ, _ := d["@type"].(string)
		switch {
		case strings.HasSuffix(typ, "google.rpc.QuotaFailure"):
			violations, _ := d["violations"].([]any)
			for _, v := range violations {
				if m, ok := v.(map[string]any); ok {
					id, _ := m["quotaId"].(string)
					add(id)
				}
			}
		case strings.HasSuffix(typ, "google.rpc.ErrorInfo"):
			if md, ok := d["metadata"].(map[string]any); ok {
				id, _ := md["quota_limit"].(string)
				add(id)
			}
		}
	}
	return q
}
