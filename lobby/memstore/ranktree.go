package memstore

// A rankTree is a set of strings in byte order that also answers by
// position: an AVL tree whose nodes count their subtrees. Insert, Rank and
// the start of Range take O(log N) for N keys, as a board's Finish must
// (a sorted slice would move N keys an insert). Its zero value is empty.
type rankTree struct{ root *rankNode }

type rankNode struct {
	key         string
	left, right *rankNode
	height      int
	size        int // nodes in the subtree, this one included
}

func (n *rankNode) sz() int {
	if n == nil {
		return 0
	}
	return n.size
}

func (n *rankNode) h() int {
	if n == nil {
		return 0
	}
	return n.height
}

// fix recomputes n's height and size from its children's.
func (n *rankNode) fix() {
	n.height = 1 + max(n.left.h(), n.right.h())
	n.size = 1 + n.left.sz() + n.right.sz()
}

func rotateRight(n *rankNode) *rankNode {
	l := n.left
	n.left, l.right = l.right, n
	n.fix()
	l.fix()
	return l
}

func rotateLeft(n *rankNode) *rankNode {
	r := n.right
	n.right, r.left = r.left, n
	n.fix()
	r.fix()
	return r
}

// balance restores the AVL property at n, whose children are balanced and
// differ in height by at most 2, and returns the subtree's new root.
func balance(n *rankNode) *rankNode {
	n.fix()
	switch d := n.left.h() - n.right.h(); {
	case d > 1:
		if n.left.left.h() < n.left.right.h() {
			n.left = rotateLeft(n.left)
		}
		return rotateRight(n)
	case d < -1:
		if n.right.right.h() < n.right.left.h() {
			n.right = rotateRight(n.right)
		}
		return rotateLeft(n)
	}
	return n
}

func insert(n *rankNode, key string) (*rankNode, bool) {
	if n == nil {
		return &rankNode{key: key, height: 1, size: 1}, true
	}
	var added bool
	switch {
	case key < n.key:
		n.left, added = insert(n.left, key)
	case key > n.key:
		n.right, added = insert(n.right, key)
	default:
		return n, false
	}
	if !added {
		return n, false
	}
	return balance(n), true
}

// Insert adds key; false if it is in the tree already.
func (t *rankTree) Insert(key string) bool {
	var added bool
	t.root, added = insert(t.root, key)
	return added
}

// Len returns the number of keys.
func (t *rankTree) Len() int { return t.root.sz() }

// Rank returns key's position, 0 for the smallest; false if it is not in
// the tree.
func (t *rankTree) Rank(key string) (int, bool) {
	rank := 0
	for n := t.root; n != nil; {
		switch {
		case key < n.key:
			n = n.left
		case key > n.key:
			rank += n.left.sz() + 1
			n = n.right
		default:
			return rank + n.left.sz(), true
		}
	}
	return 0, false
}

// Range returns the keys at positions from to from+limit-1, fewer at the
// end.
func (t *rankTree) Range(from, limit int) []string {
	from = max(from, 0)
	to := min(from+max(limit, 0), t.Len())
	if from >= to {
		return nil
	}
	return t.root.appendRange(make([]string, 0, to-from), from, to)
}

// appendRange appends the keys of n's subtree at positions [from, to)
// within it.
func (n *rankNode) appendRange(out []string, from, to int) []string {
	if n == nil || from >= to {
		return out
	}
	ls := n.left.sz()
	if from < ls {
		out = n.left.appendRange(out, from, min(to, ls))
	}
	if from <= ls && ls < to {
		out = append(out, n.key)
	}
	if to > ls+1 {
		out = n.right.appendRange(out, max(from-ls-1, 0), to-ls-1)
	}
	return out
}
