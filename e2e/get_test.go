//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/jsonpath"
)

// The suite polls the cluster every second or faster (a run's phase, the
// pods the host executor plays the kubelet for), up to eight tests at a
// time. A kubectl process costs about 0.3 CPU-seconds to start (its
// binary's init and its discovery cache): polled that way, kubectl alone
// kept both cores of the e2e machine busy and slowed the cluster it
// watched. So the plainest reads, `get` of one resource in one namespace
// printed as json, name or jsonpath, are served in-process, by client-go's
// dynamic client with a discovery REST mapper, as kubectl's own resource
// builder resolves them; every other kubectl command, and any get with
// other flags, still runs kubectl.

// reader serves quickGet's reads; nil until first used.
type reader struct {
	once   sync.Once
	err    error
	client dynamic.Interface
	mapper meta.ResettableRESTMapper
}

// quickGet serves args in-process when they are a plain get (see above):
// -n NS get WHAT [NAME] [-l SELECTOR] [--field-selector=S]
// [--ignore-not-found] [-o json|name|jsonpath=T]. ok is false when it does
// not serve them.
func (c *cluster) quickGet(args []string) (out string, ok bool, err error) {
	q, ok := parseQuickGet(args)
	if !ok {
		return "", false, nil
	}
	r := &c.reader
	r.once.Do(func() { r.err = r.connect(c.kubeconfig) })
	if r.err != nil {
		return "", false, nil
	}
	obj, err := r.get(q)
	if apierrors.IsNotFound(err) && q.ignoreNotFound {
		return "", true, nil
	}
	if err != nil {
		return "", true, fmt.Errorf("kubectl %s: Error from server: %v", strings.Join(args, " "), err)
	}
	out, err = q.print(obj)
	if err != nil {
		return "", true, fmt.Errorf("kubectl %s: %v", strings.Join(args, " "), err)
	}
	return out, true, nil
}

func (r *reader) connect(kubeconfig string) error {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return err
	}
	cfg.QPS, cfg.Burst = 200, 400
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return err
	}
	r.mapper = restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	r.client, err = dynamic.NewForConfig(cfg)
	return err
}

// quickGetArgs is one plain get.
type quickGetArgs struct {
	ns, resource, name, selector, fieldSelector, output string
	ignoreNotFound                                      bool
}

func parseQuickGet(args []string) (quickGetArgs, bool) {
	var q quickGetArgs
	var words []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		flag := func(dst *string) bool {
			if i+1 >= len(args) || *dst != "" {
				return false
			}
			i++
			*dst = args[i]
			return true
		}
		switch {
		case a == "-n":
			if !flag(&q.ns) {
				return q, false
			}
		case a == "-l":
			if !flag(&q.selector) {
				return q, false
			}
		case a == "-o":
			if !flag(&q.output) {
				return q, false
			}
		case strings.HasPrefix(a, "--field-selector="):
			q.fieldSelector = strings.TrimPrefix(a, "--field-selector=")
		case a == "--ignore-not-found":
			q.ignoreNotFound = true
		case strings.HasPrefix(a, "-"):
			return q, false
		default:
			words = append(words, a)
		}
	}
	if q.ns == "" || len(words) < 2 || words[0] != "get" || len(words) > 3 {
		return q, false
	}
	q.resource = words[1]
	if len(words) == 3 {
		q.name = words[2]
	} else if kind, name, found := strings.Cut(q.resource, "/"); found {
		q.resource, q.name = kind, name
	}
	if strings.Contains(q.resource, ",") || (q.name != "" && q.selector != "") {
		return q, false
	}
	switch {
	case q.output == "json", q.output == "name", strings.HasPrefix(q.output, "jsonpath="):
	default:
		return q, false
	}
	return q, true
}

// get reads one object, or the list that q names.
func (r *reader) get(q quickGetArgs) (any, error) {
	gvr, err := r.resourceFor(q.resource)
	if err != nil {
		return nil, err
	}
	client := r.client.Resource(gvr).Namespace(q.ns)
	ctx := context.Background()
	if q.name != "" {
		return client.Get(ctx, q.name, metav1.GetOptions{})
	}
	return client.List(ctx, metav1.ListOptions{LabelSelector: q.selector, FieldSelector: q.fieldSelector})
}

// resourceFor resolves what kubectl takes for a resource: a plural, a
// singular or a kind, each optionally with its group (pods, pod,
// workloads.kueue.x-k8s.io, workflow.argoproj.io).
func (r *reader) resourceFor(arg string) (schema.GroupVersionResource, error) {
	fullySpecified, gr := schema.ParseResourceArg(strings.ToLower(arg))
	if fullySpecified != nil {
		if gvr, err := r.mapper.ResourceFor(*fullySpecified); err == nil {
			return gvr, nil
		}
	}
	gvr, err := r.mapper.ResourceFor(gr.WithVersion(""))
	if err != nil {
		// A CRD created since discovery was read.
		r.mapper.Reset()
		gvr, err = r.mapper.ResourceFor(gr.WithVersion(""))
	}
	return gvr, err
}

// print writes obj as kubectl's -o does: json (a list as a List), name
// (kind.group/name, one a line) or jsonpath (missing keys print nothing).
func (q quickGetArgs) print(obj any) (string, error) {
	var items []unstructured.Unstructured
	var whole any
	switch o := obj.(type) {
	case *unstructured.Unstructured:
		items, whole = []unstructured.Unstructured{*o}, o.Object
	case *unstructured.UnstructuredList:
		items = o.Items
		list := map[string]any{"apiVersion": "v1", "kind": "List", "items": []any{}}
		for _, it := range o.Items {
			list["items"] = append(list["items"].([]any), it.Object)
		}
		whole = list
	}
	switch {
	case q.output == "json":
		b, err := json.MarshalIndent(whole, "", "    ")
		return string(b) + "\n", err
	case q.output == "name":
		var b strings.Builder
		for _, it := range items {
			gvk := it.GroupVersionKind()
			kind := strings.ToLower(gvk.Kind)
			if gvk.Group != "" {
				kind += "." + gvk.Group
			}
			fmt.Fprintf(&b, "%s/%s\n", kind, it.GetName())
		}
		return b.String(), nil
	default:
		jp := jsonpath.New("get").AllowMissingKeys(true)
		if err := jp.Parse(strings.TrimPrefix(q.output, "jsonpath=")); err != nil {
			return "", err
		}
		var b bytes.Buffer
		err := jp.Execute(&b, whole)
		return b.String(), err
	}
}
