package gibbstest

// ContinuousName reports whether the sampler called name samples
// continuous variables (and refuses a model without any).
func ContinuousName(name string) bool {
	switch name {
	case "gibbs-its", "gibbs-da", "pgits", "pgda", "gibbs-rejection", "pg-rejection":
		return true
	}
	return false
}

// ClusterName reports whether name is a cluster sampler, which runs only on
// ferromagnetic Potts models.
func ClusterName(name string) bool { return name == "sw" || name == "wolff" }
