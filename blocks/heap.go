package blocks

// heap is a binary heap, the element above all others (by above) on top:
// the peeling order of Forests and the candidates of a growing block.
type heap[T any] struct {
	a     []T
	above func(a, b T) bool
}

func (h *heap[T]) len() int { return len(h.a) }

func (h *heap[T]) push(v T) {
	h.a = append(h.a, v)
	for i := len(h.a) - 1; i > 0; {
		p := (i - 1) / 2
		if !h.above(h.a[i], h.a[p]) {
			break
		}
		h.a[i], h.a[p] = h.a[p], h.a[i]
		i = p
	}
}

func (h *heap[T]) pop() T {
	top := h.a[0]
	last := len(h.a) - 1
	h.a[0] = h.a[last]
	h.a = h.a[:last]
	for i := 0; ; {
		c := 2*i + 1
		if c >= last {
			break
		}
		if c+1 < last && h.above(h.a[c+1], h.a[c]) {
			c++
		}
		if !h.above(h.a[c], h.a[i]) {
			break
		}
		h.a[i], h.a[c] = h.a[c], h.a[i]
		i = c
	}
	return top
}
