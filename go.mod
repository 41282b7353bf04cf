module github.com/pgibbs/pgibbs

go 1.24.0

require (
	github.com/dominikbraun/graph v0.23.0
	gonum.org/v1/gonum v0.17.0
)
