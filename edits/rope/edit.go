package rope

import "fmt"

// Replace returns the Rope whose text is r's with [start, end) replaced by
// text. It costs O(log n + len(text)) time and new memory: the rest of the
// tree is shared with r, which is unchanged. It panics if the range is not
// inside the text.
func (r Rope) Replace(start, end int, text string) Rope {
	if start < 0 || start > end || end > r.Len() {
		panic(fmt.Sprintf("rope: replace [%d, %d) of a text of %d bytes", start, end, r.Len()))
	}
	left, rest := split(r.root, start)
	_, right := split(rest, end-start)
	return Rope{root: concat(concat(left, New(text).root), right)}
}

// split cuts n at offset k into the text before and the text after.
func split(n *node, k int) (*node, *node) {
	switch {
	case n == nil:
		return nil, nil
	case k <= 0:
		return nil, n
	case k >= n.size:
		return n, nil
	case n.isLeaf():
		return newLeaf(n.leaf[:k]), newLeaf(n.leaf[k:])
	case k < n.left.size:
		a, b := split(n.left, k)
		return a, join(b, n.right)
	case k > n.left.size:
		a, b := split(n.right, k-n.left.size)
		return join(n.left, a), b
	}
	return n.left, n.right
}

// concat is join, but a short leaf where a and b meet is merged with its
// neighbour when they fit in one leaf.
func concat(a, b *node) *node {
	if a == nil || b == nil {
		return join(a, b)
	}
	la, fb := lastLeaf(a), firstLeaf(b)
	if la.size+fb.size > maxLeaf || la.size >= minLeaf && fb.size >= minLeaf {
		return join(a, b)
	}
	a, _ = split(a, a.size-la.size)
	_, b = split(b, fb.size)
	return join(join(a, newLeaf(la.leaf+fb.leaf)), b)
}

func lastLeaf(n *node) *node {
	for !n.isLeaf() {
		n = n.right
	}
	return n
}

func firstLeaf(n *node) *node {
	for !n.isLeaf() {
		n = n.left
	}
	return n
}

// join returns the balanced concatenation of l and r: it goes down the
// taller tree's inner side to where the heights meet, and rebalances on the
// way back up.
func join(l, r *node) *node {
	switch {
	case l == nil:
		return r
	case r == nil:
		return l
	case l.height > r.height+1:
		return balance(l.left, join(l.right, r))
	case r.height > l.height+1:
		return balance(join(l, r.left), r.right)
	}
	return newInner(l, r)
}

// balance returns newInner(l, r), rotated if their heights differ by two.
func balance(l, r *node) *node {
	switch d := height(l) - height(r); {
	case d > 1:
		if height(l.left) >= height(l.right) {
			return newInner(l.left, newInner(l.right, r))
		}
		return newInner(newInner(l.left, l.right.left), newInner(l.right.right, r))
	case d < -1:
		if height(r.right) >= height(r.left) {
			return newInner(newInner(l, r.left), r.right)
		}
		return newInner(newInner(l, r.left.left), newInner(r.left.right, r.right))
	}
	return newInner(l, r)
}
