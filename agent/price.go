package agent

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// A Price is what a model's tokens cost, in US dollars per million tokens.
// Prompts longer than LongAbove tokens cost the Long rates (0: one rate for
// every length).
type Price struct {
	Input       float64 `json:"input"`                 // prompt tokens not read from the cache
	CachedInput float64 `json:"cachedInput,omitempty"` // prompt tokens read from the cache
	Output      float64 `json:"output"`                // answer and thinking tokens
	LongAbove   int64   `json:"longAbove,omitempty"`
	LongInput   float64 `json:"longInput,omitempty"`
	LongCached  float64 `json:"longCachedInput,omitempty"`
	LongOutput  float64 `json:"longOutput,omitempty"`
}

// Cost is what usage u of one model call costs at p, in US dollars. The
// API counts cached tokens inside the prompt, and bills thinking as output.
func (p Price) Cost(u Usage) float64 {
	in, cached, out := p.Input, p.CachedInput, p.Output
	if p.LongAbove > 0 && u.Prompt+u.ToolUse > p.LongAbove {
		in, cached, out = p.LongInput, p.LongCached, p.LongOutput
	}
	if cached == 0 {
		cached = in
	}
	fresh := u.Prompt - u.Cached + u.ToolUse
	return (float64(fresh)*in + float64(u.Cached)*cached + float64(u.Output+u.Thoughts)*out) / 1e6
}

// Prices is the Gemini API's price list (paid tier, text), by model, as
// published on https://ai.google.dev/gemini-api/docs/pricing and in
// Google's launch notes; read in November 2026. Prices change: a user's
// settings can override any of them ([PriceTable.With]).
var Prices = PriceTable{
	"gemini-3.5-flash":       {Input: 1.50, CachedInput: 0.15, Output: 9.00},
	"gemini-3.1-pro-preview": {Input: 2.00, CachedInput: 0.20, Output: 12.00, LongAbove: 200_000, LongInput: 4.00, LongCached: 0.40, LongOutput: 18.00},
	"gemini-3.1-flash-lite":  {Input: 0.25, CachedInput: 0.025, Output: 1.50},
	"gemini-3-flash-preview": {Input: 0.50, CachedInput: 0.05, Output: 3.00},
	"gemini-2.5-pro":         {Input: 1.25, CachedInput: 0.125, Output: 10.00, LongAbove: 200_000, LongInput: 2.50, LongCached: 0.25, LongOutput: 15.00},
	"gemini-2.5-flash":       {Input: 0.30, CachedInput: 0.03, Output: 2.50},
	"gemini-2.5-flash-lite":  {Input: 0.10, CachedInput: 0.01, Output: 0.40},
}

// priceAliases maps the API's "-latest" aliases and preview names to the
// model whose price they carry: an alias follows its family's current
// model.
var priceAliases = map[string]string{
	"gemini-flash-latest":           "gemini-3.5-flash",
	"gemini-pro-latest":             "gemini-3.1-pro-preview",
	"gemini-flash-lite-latest":      "gemini-3.1-flash-lite",
	"gemini-3.1-flash-lite-preview": "gemini-3.1-flash-lite",
}

// A PriceTable prices models by name.
type PriceTable map[string]Price

// With returns the table with the prices of over added or replacing its
// own.
func (t PriceTable) With(over map[string]Price) PriceTable {
	out := make(PriceTable, len(t)+len(over))
	for k, v := range t {
		out[k] = v
	}
	for k, v := range over {
		out[k] = v
	}
	return out
}

// Lookup finds a model's price: by its name ("models/" prefix aside), by
// the alias it is, or by the name without a version suffix
// ("gemini-2.5-flash-001", "gemini-3.1-pro-preview-06-05").
func (t PriceTable) Lookup(model string) (Price, bool) {
	name := strings.TrimPrefix(strings.TrimSpace(model), "models/")
	if name == "" {
		return Price{}, false
	}
	for n := name; ; {
		if p, ok := t[n]; ok {
			return p, true
		}
		if a, ok := priceAliases[n]; ok {
			if p, ok := t[a]; ok {
				return p, true
			}
		}
		i := strings.LastIndexByte(n, '-')
		if i < 0 || !isDigits(n[i+1:]) {
			return Price{}, false
		}
		n = n[:i]
	}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// priced gives the usage of one model call its cost: at the price of the
// model that answered (the API's modelVersion), else of the model asked for
// (the run's model when the request names none).
func (r *run) priced(u Usage, answered, asked string) Usage {
	if asked == "" {
		asked = r.modelDefault
	}
	p, ok := r.prices.Lookup(answered)
	if !ok {
		p, ok = r.prices.Lookup(asked)
	}
	if !ok {
		u.Unpriced = true
		return u
	}
	u.Cost = p.Cost(u)
	return u
}

// overBudget reports whether the run has spent more than its budget.
func (r *run) overBudget() bool {
	return r.budget > 0 && r.usage.Cost > r.budget
}

// Dollars writes an amount of US dollars for people: cents from a dime up
// ("$1.25"), two significant digits below ("$0.0024").
func Dollars(v float64) string {
	switch {
	case v == 0:
		return "$0"
	case v < 0:
		return "-" + Dollars(-v)
	case v >= 0.1:
		return fmt.Sprintf("$%.2f", v)
	}
	scale := math.Pow(10, float64(1-int(math.Floor(math.Log10(v)))))
	return "$" + strconv.FormatFloat(math.Round(v*scale)/scale, 'f', -1, 64)
}
