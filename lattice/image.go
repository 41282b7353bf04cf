package lattice

import (
	"fmt"
	"image"
	"image/color"
	"math"
)

// Image draws state x as a picture with scale×scale pixels a site: the
// N×N lattice in 2-D (row = axis 0), the slice of sites with first
// coordinate 0 in 3-D, and a strip of the N sites, max(8, N/16) rows high, in
// 1-D. Ising spins are black (−1) and white (+1), Potts states get q evenly
// spaced hues, continuous spins grey levels from black (Lo) to white (Hi).
// It returns an error if x is not a state of l or the picture would exceed
// 2²⁸ pixels.
func (l *Lattice) Image(x []float64, scale int) (*image.NRGBA, error) {
	if len(x) != l.n {
		return nil, fmt.Errorf("lattice: image of a state of %d values for %d sites", len(x), l.n)
	}
	if scale < 1 {
		return nil, fmt.Errorf("lattice: image scale %d < 1", scale)
	}
	w, h := l.size, l.size
	if l.dim == 1 {
		h = max(8, l.size/16)
	}
	if float64(w)*float64(h)*float64(scale)*float64(scale) > 1<<28 {
		return nil, fmt.Errorf("lattice: a %d×%d picture at scale %d is too large", w, h, scale)
	}
	palette := l.palette()
	img := image.NewNRGBA(image.Rect(0, 0, w*scale, h*scale))
	for row := range h {
		for col := range w {
			i := col // 1-D: every row of the strip shows the whole lattice
			if l.dim > 1 {
				i = row*l.size + col // 2-D site, or 3-D site (0, row, col)
			}
			v := x[i]
			if !l.dom.Contains(v) {
				return nil, fmt.Errorf("lattice: image: site %d holds %v, outside its domain %v", i, v, l.dom)
			}
			var c color.NRGBA
			if palette != nil {
				c = palette[int(v)]
			} else {
				g := uint8(math.Round(255 * (v - l.p.Spin.Lo) / (l.p.Spin.Hi - l.p.Spin.Lo)))
				c = color.NRGBA{g, g, g, 255}
			}
			for dy := range scale {
				for dx := range scale {
					img.SetNRGBA(col*scale+dx, row*scale+dy, c)
				}
			}
		}
	}
	return img, nil
}

// palette returns the colours of discrete states (nil for continuous spins).
func (l *Lattice) palette() []color.NRGBA {
	switch l.kind {
	case IsingSpins:
		return []color.NRGBA{{0, 0, 0, 255}, {255, 255, 255, 255}}
	case PottsSpins:
		p := make([]color.NRGBA, l.q)
		for v := range p {
			p[v] = hsv(float64(v)/float64(l.q), 0.75, 0.95)
		}
		return p
	}
	return nil
}

// hsv converts a hue in [0, 1) with saturation s and value v to a colour.
func hsv(hue, s, v float64) color.NRGBA {
	h := hue * 6
	sector := int(h) % 6
	f := h - math.Floor(h)
	p, q, t := v*(1-s), v*(1-s*f), v*(1-s*(1-f))
	var r, g, b float64
	switch sector {
	case 0:
		r, g, b = v, t, p
	case 1:
		r, g, b = q, v, p
	case 2:
		r, g, b = p, v, t
	case 3:
		r, g, b = p, q, v
	case 4:
		r, g, b = t, p, v
	default:
		r, g, b = v, p, q
	}
	u := func(c float64) uint8 { return uint8(math.Round(255 * c)) }
	return color.NRGBA{u(r), u(g), u(b), 255}
}
