package agent

import "google.golang.org/genai"

// A HistoryChange is how a run's history changed since the last change
// (or since Config.History): its first Keep contents stay, and Add follow
// them. A turn adds contents; a note to the model replaces the last one;
// compression replaces most of it. Contents are never changed in place,
// so a change's contents may be kept as they are.
type HistoryChange struct {
	Keep int              `json:"keep"`
	Add  []*genai.Content `json:"add"`
}

// Apply returns h changed by c; ok is false when h is shorter than c keeps.
func (c HistoryChange) Apply(h []*genai.Content) (out []*genai.Content, ok bool) {
	if c.Keep < 0 || c.Keep > len(h) {
		return h, false
	}
	return append(h[:c.Keep:c.Keep], c.Add...), true
}

// saveHistory tells Config.SaveHistory how the history changed since it
// last heard, if it did.
func (r *run) saveHistory() {
	if r.saveHist == nil {
		return
	}
	keep := 0
	for keep < len(r.saved) && keep < len(r.history) && r.saved[keep] == r.history[keep] {
		keep++
	}
	if keep == len(r.saved) && keep == len(r.history) {
		return
	}
	add := r.history[keep:len(r.history):len(r.history)]
	r.saved = r.history[:len(r.history):len(r.history)]
	r.saveHist(HistoryChange{Keep: keep, Add: add})
}
