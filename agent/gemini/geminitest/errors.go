package geminitest

import (
	"fmt"
	"net/http"
	"strings"
)

// Error details as the API writes them in an error body's "details": each
// is a google.rpc message with its "@type".

// RetryInfo is a google.rpc.RetryInfo detail: how long to wait, as a
// protobuf Duration in JSON ("27s", "1.5s").
func RetryInfo(delay string) map[string]any {
	return map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}
}

// QuotaFailure is a google.rpc.QuotaFailure detail naming the quotas a
// call exceeded for model, such as
// "GenerateRequestsPerDayPerProjectPerModel-FreeTier".
func QuotaFailure(model string, quotaIDs ...string) map[string]any {
	var violations []any
	for _, id := range quotaIDs {
		metric := "generativelanguage.googleapis.com/generate_content_free_tier_requests"
		if strings.Contains(id, "InputTokens") {
			metric = "generativelanguage.googleapis.com/generate_content_free_tier_input_token_count"
		}
		violations = append(violations, map[string]any{
			"quotaMetric":     metric,
			"quotaId":         id,
			"quotaDimensions": map[string]any{"location": "global", "model": model},
		})
	}
	return map[string]any{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": violations}
}

// ErrorInfo is a google.rpc.ErrorInfo detail.
func ErrorInfo(reason, domain string, metadata map[string]string) map[string]any {
	d := map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason, "domain": domain}
	if len(metadata) > 0 {
		m := make(map[string]any, len(metadata))
		for k, v := range metadata {
			m[k] = v
		}
		d["metadata"] = m
	}
	return d
}

// QuotaHelp is the google.rpc.Help detail of the API's quota errors.
func QuotaHelp() map[string]any {
	return map[string]any{"@type": "type.googleapis.com/google.rpc.Help", "links": []any{
		map[string]any{"description": "Learn more about Gemini API quotas", "url": "https://ai.google.dev/gemini-api/docs/rate-limits"},
	}}
}

// Messages the API sends.
const (
	OverloadedMessage = "The model is overloaded. Please try again later."
	QuotaMessage      = "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits."
)

// RetiredMessage is the API's 404 message for a model new API keys can no
// longer use.
func RetiredMessage(model string) string {
	return fmt.Sprintf("This model models/%s is no longer available to new users. Please update your code to use a newer model for the latest features and improvements.", model)
}

// Overloaded returns the API's answer when the model is overloaded: 503
// UNAVAILABLE.
func Overloaded() Turn {
	return Turn{Status: http.StatusServiceUnavailable, ErrMessage: OverloadedMessage}
}

// QuotaExceeded returns a 429 RESOURCE_EXHAUSTED as the Gemini API writes
// it: QuotaFailure naming the exceeded quotas of model, Help, and, when
// retryDelay is not "", RetryInfo.
func QuotaExceeded(model, retryDelay string, quotaIDs ...string) Turn {
	details := []map[string]any{QuotaFailure(model, quotaIDs...), QuotaHelp()}
	msg := QuotaMessage
	if retryDelay != "" {
		details = append(details, RetryInfo(retryDelay))
		msg += " Please retry in " + retryDelay + "."
	}
	return Turn{Status: http.StatusTooManyRequests, ErrMessage: msg, ErrDetails: details}
}

// Quota ids the Gemini API names in QuotaFailure details.
const (
	PerDayQuota    = "GenerateRequestsPerDayPerProjectPerModel-FreeTier"
	PerMinuteQuota = "GenerateRequestsPerMinutePerProjectPerModel-FreeTier"
	TokensQuota    = "GenerateContentInputTokensPerModelPerMinute-FreeTier"
)
