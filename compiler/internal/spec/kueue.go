package spec

// QueueOf is the Kueue LocalQueue that admits st's workload: the step's
// own queue (empty when it says queue: ""), else the platform's.
func (p *Platform) QueueOf(st *Step) string {
	if st.Queue != nil {
		return *st.Queue
	}
	return p.Queue
}

// PrioritiesOf are st's priorities: each the step's own, else the
// platform's.
func (p *Platform) PrioritiesOf(st *Step) Priorities {
	out := p.Priorities
	if st.WorkloadPriorityClass != "" {
		out.WorkloadPriorityClass = st.WorkloadPriorityClass
	}
	if st.PriorityClassName != "" {
		out.PriorityClassName = st.PriorityClassName
	}
	return out
}
