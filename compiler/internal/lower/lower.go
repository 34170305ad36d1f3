package lower

import (
	"encoding/json"
	"maps"
	"slices"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Defaults that match the MLCube Kubernetes runner and PRODUCT.md.
const (
	defaultMountPath   = "/mnt/mlcube"
	defaultGPUResource = "nvidia.com/gpu"
	defaultClaimSize   = "10Gi"
	workspaceVolume    = "workspace"
	legacyMountRoot    = "/mnt/mlcube"
)

// lowering holds what the whole pipeline shares while its steps are lowered.
type lowering struct {
	spec  *spec.Pipeline
	plat  *spec.Platform
	diags diag.Diagnostics
	// refs are the params as references read them.
	refs *paramRefs
	// use is what the steps ask of the platform, gathered as they are
	// lowered.
	use       usage
	mountPath string
	p         *ir.Pipeline
	volumes   map[string]ir.Volume
	ws        ir.Volume
	// sized is the volume each pod has of its own where fetched data
	// lands (the scratch and fetched volumes, an object workspace), of
	// the size and storage class the platform's storage asks for; nil
	// when it asks for neither (each is then an emptyDir).
	sized *ir.ClaimTemplate
	// claimVolumes maps a legacy binding's claim to its volume's name.
	claimVolumes map[string]string
	// data is what each step fetches, reads and writes, by its name.
	data map[string]*stepData
	// dataClaim is the volume of the claim that holds the inputs no step
	// writes, with an object workspace; empty for none.
	dataClaim   string
	volumeNames *nameSet
	templates   *nameSet
	tmplNames   map[string]string // cube file + task -> template name
	// gpus are the requests for GPUs by Dynamic Resource Allocation.
	gpus *gpuRequests
	// noted are the places already given a note said once per place.
	noted map[string]bool
}

// usage is what the lowered steps ask of the platform, for the checks
// of what the run leaves unused.
type usage struct {
	// queued says some step runs in a Kueue queue.
	queued bool
	// askedGPU says some pod asks for GPUs; placed, which of the
	// platform's placements (cpu: false, gpu: true) some pod took.
	askedGPU bool
	placed   [2]bool
}

// Lower builds the IR from the decoded specs, resolving each value once
// and reporting what the specs get wrong where it reads it. needValues,
// when set, says why every param needs a value at compile time (the
// param-values pass reports each param without one). Lowering
// is total: it returns a pipeline whatever the specs say (a value it
// refuses lowers to nothing, a step it cannot name gets a stand-in, a
// cycle leaves the steps in written order), and package verify checks
// what needs the lowered pipeline.
func Lower(ps *spec.Pipeline, plat *spec.Platform, needValues string) (*ir.Pipeline, diag.Diagnostics) {
	// 1. What every step shares: the mount path, name, workspace, object
	// store, params, configs and schedule.
	lw := newLowering(ps, plat)
	// 2. Each step, in written order, with what it reads and writes and
	// what it asks of the platform.
	steps, io := lw.lowerSteps()
	fl := &flow{specs: ps.Steps, steps: steps, io: io, data: lw.data}
	// 3. What the steps read and write, and ask, as a whole: the paths no
	// step writes; the platform's queue, once every step's is known; a
	// --task list's order, which may not be the paths' own.
	lw.p.Needed = fl.needed(lw.claimOf, ps.Params)
	lw.diags = append(lw.diags, kueue(plat, lw.use.queued, len(ps.Steps) > 0)...)
	lw.diags = append(lw.diags, listOrder(ps, io)...)
	// 4. The steps in run order, each with its dependencies; a cycle
	// leaves the written order.
	var diags diag.Diagnostics
	lw.p.Steps, diags = fl.order(ps.Tasks)
	lw.diags = append(lw.diags, diags...)
	// 5. With an object workspace, each step's fetches and uploads: they
	// follow the run order, and may mount storage.pvc's claim.
	lw.objectFlow(plat.Storage)
	// 6. What passes.Table needs: the volumes and claim templates listed
	// by name, now that no step adds one; each param marked with what
	// references read of it, the object flow's paths' too.
	for _, name := range slices.Sorted(maps.Keys(lw.volumes)) {
		lw.p.Volumes = append(lw.p.Volumes, lw.volumes[name])
	}
	for _, name := range slices.Sorted(maps.Keys(lw.gpus.templates)) {
		lw.p.ResourceClaimTemplates = append(lw.p.ResourceClaimTemplates, lw.gpus.templates[name])
	}
	lw.refs.mark(lw.p.Params)
	lw.p.NeedValues = needValues
	// 7. The platform's settings no step uses, once the object flow has
	// added its fetches (kubectlImage's container makes their folders) and
	// said whether a step mounts storage.pvc's claim.
	_, mounted := lw.volumes[lw.dataClaim]
	lw.diags = append(lw.diags, unused(plat, ps, lw.p, lw.use, lw.dataClaim != "" && !mounted)...)
	return lw.p, lw.diags
}

// newLowering lowers what the whole pipeline shares, before its steps:
// the mount path, name, workspace, params, configs and schedule.
func newLowering(ps *spec.Pipeline, plat *spec.Platform) *lowering {
	lw := &lowering{
		spec: ps, plat: plat,
		volumes: map[string]ir.Volume{}, templates: newNameSet(), tmplNames: map[string]string{},
		claimVolumes: map[string]string{}, volumeNames: newNameSet(workspaceVolume, ir.FetchedVolume),
		data: map[string]*stepData{},
	}
	var diags diag.Diagnostics
	lw.mountPath, diags = mountPath(plat.Storage.MountPath, plat.Loc.Field("storage").Field("mountPath"))
	lw.diags = append(lw.diags, diags...)
	lw.p = &ir.Pipeline{
		Source:                  ps.File,
		Spec:                    ps.Loc,
		Platform:                plat.Loc,
		ServiceAccountName:      plat.ServiceAccountName,
		JobServiceAccountName:   plat.JobServiceAccount,
		LimitsEqualRequests:     plat.LimitsEqual,
		ImagePullSecrets:        plat.ImagePullSecrets,
		TTLSecondsAfterFinished: plat.TTLSeconds,
		KubectlImage:            plat.KubectlImage,
		PodSecurity:             plat.PodSecurity,
		FileSteps:               ps.FileSteps,
	}
	if lw.p.KubectlImage == "" {
		lw.p.KubectlImage = defaultKubectlImage
	}
	if len(plat.Tekton) > 0 {
		lw.p.Engines = map[string]json.RawMessage{"tekton": plat.Tekton}
	}
	lw.pipelineMeta()
	lw.gpus, diags = platformGPUs(plat, lw.p.Name)
	lw.diags = append(lw.diags, diags...)
	var argo json.RawMessage
	lw.p.ObjectStore, argo, diags = lowerObjectStore(plat.ObjectStore, plat.Loc.Field("objectStore"))
	lw.diags = append(lw.diags, diags...)
	if argo != nil {
		if lw.p.Engines == nil {
			lw.p.Engines = map[string]json.RawMessage{}
		}
		lw.p.Engines["argo"] = argo
	}
	lw.ws = lw.workspaceSpec(plat.Storage, plat.Loc.Field("storage"))
	if plat.ObjectStore != nil && plat.ObjectStore.Cache != nil && !plat.Storage.Object() {
		lw.diags = append(lw.diags, diag.Errorf(diag.BadCache, plat.Loc.Field("objectStore").Field("cache"),
			"the cache keeps the outputs steps upload, and the steps' data stays on the claim: none is uploaded").
			WithFix("set storage.workspace: object, or drop the cache"))
		lw.p.ObjectStore.Cache = nil
	}
	if lw.p.ObjectStore != nil {
		// Each pod's fetches land first on a volume of the size and
		// storage class the platform asks for, as every folder that
		// receives fetched data is (never the node's own disk, which a
		// large dataset would fill).
		lw.p.ObjectStore.Scratch = lw.sizedClaim()
	}
	lw.p.Params, lw.refs, diags = lowerParams(ps.Params)
	lw.diags = append(lw.diags, diags...)
	lw.p.Config = configMap(lw.p.Name, ps.Configs)
	lw.p.Schedule, diags = lowerSchedule(ps.Schedule)
	lw.diags = append(lw.diags, diags...)
	return lw
}

// cubes returns the distinct cubes steps use, in step order.
func cubes(steps []*spec.Step) []*spec.Cube {
	var out []*spec.Cube
	seen := map[*spec.Cube]bool{}
	for _, st := range steps {
		if st.Cube != nil && !seen[st.Cube] {
			seen[st.Cube] = true
			out = append(out, st.Cube)
		}
	}
	return out
}

// pipelineMeta sets the name, namespace and labels.
func (lw *lowering) pipelineMeta() {
	name := lw.spec.Name
	cubes := cubes(lw.spec.Steps)
	if name == "" && len(cubes) > 0 {
		name = cubes[0].Name
	}
	lw.p.Name, lw.p.Written = ir.DNSName(name, ir.MaxNameLen), name
	lw.p.Namespace = lw.plat.Namespace
	if lw.p.Namespace == "" && len(cubes) == 1 {
		lw.p.Namespace = cubes[0].K8s.Namespace
	}
	lw.p.Labels = map[string]string{
		"app.kubernetes.io/name":    lw.p.Name,
		"app.kubernetes.io/part-of": "mlcube-compile",
	}
}
