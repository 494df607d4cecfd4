package memstore

// Delete removes key; false if it was not in the tree. A board only grows,
// but a ladder loses the players who become provisional again.
func (t *rankTree) Delete(key string) bool {
	var removed bool
	t.root, removed = remove(t.root, key)
	return removed
}

func remove(n *rankNode, key string) (*rankNode, bool) {
	if n == nil {
		return nil, false
	}
	var removed bool
	switch {
	case key < n.key:
		n.left, removed = remove(n.left, key)
	case key > n.key:
		n.right, removed = remove(n.right, key)
	default:
		if n.left == nil {
			return n.right, true
		}
		if n.right == nil {
			return n.left, true
		}
		// Two children: n takes its successor's key, which leaves the right
		// subtree.
		m := n.right
		for m.left != nil {
			m = m.left
		}
		n.key = m.key
		n.right, _ = remove(n.right, m.key)
		removed = true
	}
	if !removed {
		return n, false
	}
	return balance(n), true
}
