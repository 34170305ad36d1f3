package lower

import (
	"maps"
	"slices"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// What a platform key is for, and when the compiled run ignores it; each
// such key set is said once, at the key (unusedGPU, unusedJobs,
// unusedKueue, unusedObjects, unusedDigests), and each param no step
// refers to (the param-values pass). The steps are those compiled:
// --step's, for a pipeline file. Keys every run uses, or that describe the cluster
// rather than ask anything of it, are never said:
//   - namespace, serviceAccountName, image settings, securityContext,
//     limitsEqualRequests, ttlSecondsAfterFinished, storage.mountPath,
//     size, storageClassName, accessModes and workspace: every run;
//   - tekton.coschedule: what the cluster's Tekton does, read to place
//     a Tekton run, whatever it is (another engine's run is told by the
//     driver, otherEngines); objectStore.artifactGC and
//     artifactRepositoryRef are Argo's, and said with objectStore;
//   - multiKueue and a workloadPriorityClass with no step queued at
//     all: refused (kueue), not said.

// unused says the settings of the platform that no step of the compiled
// run, p, uses: its steps as written ask use of the platform, and
// dataClaimIdle says no step mounts the claim that holds an object
// workspace's inputs.
func unused(plat *spec.Platform, ps *spec.Pipeline, p *ir.Pipeline, use usage, dataClaimIdle bool) diag.Diagnostics {
	if len(ps.Steps) == 0 || ps.Incomplete {
		return nil
	}
	diags := unusedGPU(plat, use)
	diags = append(diags, unusedJobs(plat, p.Steps, use.queued)...)
	diags = append(diags, unusedKueue(plat, ps.Steps, use.queued)...)
	diags = append(diags, unusedObjects(plat, p.Steps, dataClaimIdle)...)
	return append(diags, unusedDigests(plat, p.Steps)...)
}

// unusedDigests: an entry of imageDigests locks the image of no step of
// the run when none names it (as written, or as a registry names it),
// or when the step's image names a digest of its own.
func unusedDigests(plat *spec.Platform, steps []*ir.Step) diag.Diagnostics {
	var diags diag.Diagnostics
	for _, key := range slices.Sorted(maps.Keys(plat.ImageDigests)) {
		if !slices.ContainsFunc(steps, func(s *ir.Step) bool {
			return s.ImageLocked && imageRef(ir.ImageName(s.Image)) == imageRef(key)
		}) {
			diags = append(diags, diag.Warnf(diag.PlatformSettingUnused, plat.Loc.Field("imageDigests").Field(key),
				"no step of the run runs image %s by its tag, so its digest applies to nothing", key).
				WithFix("name the image as the step does (mlcube-compile lock prints it so), or drop the entry"))
		}
	}
	return diags
}

// unusedGPU: the gpu: settings go to pods that ask for GPUs, its
// placement to those pods; cpu:'s placement to the others.
func unusedGPU(plat *spec.Platform, use usage) diag.Diagnostics {
	var diags diag.Diagnostics
	g, at := plat.GPU, plat.Loc.Field("gpu")
	set := []struct {
		key string
		on  bool
	}{
		{"resource", g.Resource != ""}, {"deviceClass", g.DeviceClass != ""}, {"selector", g.Selector != ""},
		{"extendedResourceName", g.ExtendedResourceName != ""}, {"sharedClaim", g.SharedClaim != ""},
		{"nodeSelector", len(g.NodeSelector) > 0}, {"tolerations", len(g.Tolerations) > 0},
	}
	for _, f := range set {
		placement := f.key == "nodeSelector" || f.key == "tolerations"
		switch {
		case !f.on:
		case !use.askedGPU:
			diags = append(diags, diag.Warnf(diag.GPUSettingUnused, at.Field(f.key),
				"no step of the run asks for a GPU, so gpu.%s applies to nothing", f.key))
		case placement && !use.placed[1]:
			diags = append(diags, diag.Warnf(diag.GPUSettingUnused, at.Field(f.key),
				"no pod of the run that asks for GPUs is placed by gpu:, so gpu.%s applies to nothing", f.key))
		}
	}
	c, cat := plat.CPU, plat.Loc.Field("cpu")
	if use.placed[0] {
		return diags
	}
	if len(c.NodeSelector) > 0 {
		diags = append(diags, diag.Warnf(diag.CPUPlacementUnused, cat.Field("nodeSelector"),
			"every step of the run asks for GPUs and is placed by gpu:, so cpu.nodeSelector applies to nothing"))
	}
	if len(c.Tolerations) > 0 {
		diags = append(diags, diag.Warnf(diag.CPUPlacementUnused, cat.Field("tolerations"),
			"every step of the run asks for GPUs and is placed by gpu:, so cpu.tolerations applies to nothing"))
	}
	return diags
}

// unusedJobs: mpi.apiVersion is for mpi: steps, jobServiceAccountName
// for the pods of every distributed job, kubectlImage for the pods that
// create those jobs (and clean them up), MedPerf's output files and the
// steps' folders, the
// platform's image for every step but a Dask step.
func unusedJobs(plat *spec.Platform, steps []*ir.Step, queued bool) diag.Diagnostics {
	var diags diag.Diagnostics
	kinds := map[ir.Kind]bool{}
	for _, s := range steps {
		kinds[s.Kind] = true
	}
	if plat.MPI.APIVersion != "" && !kinds[ir.MPI] {
		diags = append(diags, diag.Warnf(diag.PlatformSettingUnused, plat.Loc.Field("mpi").Field("apiVersion"),
			"no step of the run is an mpi: step, so mpi.apiVersion applies to nothing"))
	}
	if plat.Dask.Kind != "" && !kinds[ir.Dask] {
		diags = append(diags, diag.Warnf(diag.PlatformSettingUnused, plat.Loc.Field("dask").Field("kind"),
			"no step of the run is a dask: step, so dask.kind applies to nothing"))
	}
	if plat.JobServiceAccount != "" && !kinds[ir.MPI] && !kinds[ir.Torch] && !kinds[ir.Dask] {
		diags = append(diags, diag.Warnf(diag.PlatformSettingUnused, plat.Loc.Field("jobServiceAccountName"),
			"no step of the run is a distributed job (mpi:, torch: or dask:), so jobServiceAccountName applies to nothing"))
	}
	// The container that makes a step's folders (kube.FoldersContainer)
	// runs in it too, on every engine: its output folders, and on Argo
	// the scratch folders of what it fetches.
	files := slices.ContainsFunc(steps, func(s *ir.Step) bool {
		return len(s.Folders) > 0 || len(s.Fetches) > 0 ||
			slices.ContainsFunc(s.Mounts, func(m ir.Mount) bool { return m.File })
	})
	if plat.KubectlImage != "" && !kinds[ir.MPI] && !kinds[ir.Torch] && !kinds[ir.Dask] && !files {
		diags = append(diags, diag.Warnf(diag.PlatformSettingUnused, plat.Loc.Field("kubectlImage"),
			"the run has no distributed job, MedPerf output file or output folder, so kubectlImage applies to nothing").
			WithDetail("kubectlImage runs the pods that create a distributed job (mpi:, torch:, dask:) or a MedPerf "+
				"output file, and the containers that make a step's output folders."))
	}
	if plat.Image != "" && len(kinds) == 1 && kinds[ir.Dask] {
		diags = append(diags, diag.Warnf(diag.PlatformSettingUnused, plat.Loc.Field("image"),
			"every step of the run is a dask: step, which runs dask.image, so the platform's image applies to nothing"))
	}
	// With no queued step at all, kueue refuses multiKueue.
	if plat.MultiKueue && queued && !slices.ContainsFunc(steps, func(s *ir.Step) bool {
		return s.Queue != "" && s.Kind != ir.Container
	}) {
		diags = append(diags, diag.Warnf(diag.PlatformSettingUnused, plat.Loc.Field("multiKueue"),
			"no step of the run is a queued mpi:, torch: or dask: job, so multiKueue applies to nothing").
			WithDetail("multiKueue hands queued mpi:, torch: and dask: jobs to Kueue's MultiKueue."))
	}
	return diags
}

// unusedKueue: the platform's queue is for the steps that name none, its
// workloadPriorityClass for the queued steps that name none, its
// priorityClassName for the steps that name none.
func unusedKueue(plat *spec.Platform, steps []*spec.Step, queued bool) diag.Diagnostics {
	var diags diag.Diagnostics
	var queue, wpc, pcn bool
	for _, st := range steps {
		queue = queue || st.Queue == nil
		wpc = wpc || plat.QueueOf(st) != "" && st.WorkloadPriorityClass == ""
		pcn = pcn || st.PriorityClassName == ""
	}
	at := plat.Loc
	if plat.Queue != "" && !queue {
		diags = append(diags, diag.Warnf(diag.PlatformSettingUnused, at.Field("queue"),
			"every step of the run sets its own queue, so the platform's queue applies to nothing"))
	}
	// With no queue at all, kueue refuses the platform's class.
	if plat.WorkloadPriorityClass != "" && !wpc && (queued || plat.Queue != "") {
		diags = append(diags, diag.Warnf(diag.PlatformSettingUnused, at.Field("workloadPriorityClass"),
			"no step of the run runs in a queue with the platform's workloadPriorityClass, so it applies to nothing"))
	}
	if plat.PriorityClassName != "" && !pcn {
		diags = append(diags, diag.Warnf(diag.PlatformSettingUnused, at.Field("priorityClassName"),
			"every step of the run sets its own priorityClassName, so the platform's applies to nothing"))
	}
	return diags
}

// unusedObjects: the object store holds an object workspace's data and
// s3:// inputs (its toolImage fetches any URL); with an object workspace,
// storage.pvc's claim holds the inputs no step writes.
func unusedObjects(plat *spec.Platform, steps []*ir.Step, dataClaimIdle bool) diag.Diagnostics {
	var diags diag.Diagnostics
	var s3, url bool
	for _, s := range steps {
		for _, f := range s.Fetches {
			if f.URL != nil {
				url = true
				s3 = s3 || f.URL.Scheme == "s3"
			}
		}
	}
	at := plat.Loc.Field("objectStore")
	switch o := plat.ObjectStore; {
	case o == nil || plat.Storage.Object() || s3:
	case !url:
		diags = append(diags, diag.Warnf(diag.ObjectStoreUnused, at,
			"no step of the run fetches an s3:// URL, and storage.workspace is not object, so objectStore applies to nothing"))
	case o.S3 != nil:
		diags = append(diags, diag.Warnf(diag.ObjectStoreUnused, at.Field("s3"),
			"the run fetches only http(s):// URLs, and storage.workspace is not object, so objectStore.s3 applies to nothing"))
	case o.ArtifactRepositoryRef != nil:
		diags = append(diags, diag.Warnf(diag.ObjectStoreUnused, at.Field("artifactRepositoryRef"),
			"the run fetches only http(s):// URLs, and storage.workspace is not object, so artifactRepositoryRef applies to "+
				"nothing"))
	}
	if o := plat.ObjectStore; o != nil && o.ArtifactGC != "" && !plat.Storage.Object() && s3 {
		diags = append(diags, diag.Warnf(diag.ObjectStoreUnused, at.Field("artifactGC"),
			"with storage.workspace not object no step uploads anything, so artifactGC applies to nothing").
			WithDetail("artifactGC deletes a run's uploads."))
	}
	if plat.Storage.Object() && plat.Storage.PVC != "" && dataClaimIdle {
		diags = append(diags, diag.Warnf(diag.DataClaimUnused, plat.Loc.Field("storage").Field("pvc"),
			"with storage.workspace: object, no step mounts the claim %s", plat.Storage.PVC).
			WithDetail("With an object workspace the claim holds only the inputs no step writes, and every input of the "+
				"run is written by an earlier step or given as a URL."))
	}
	return diags
}
