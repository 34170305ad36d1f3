//go:build e2e

package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// objectStore is the cluster's object store, SeaweedFS's S3 gateway
// (scripts/e2e/objectstore.sh), as that script wrote its facts into
// .e2e/run/objectstore.json (or the file E2E_OBJECTSTORE names).
type objectStore struct {
	// Endpoint is host:port, plain HTTP, on the node's address: pods on
	// the real node, Argo's controller and this suite all reach it.
	Endpoint string `json:"endpoint"`
	// Service is the gateway by the name of a Service (host:port), which
	// only pods resolve: seaweedfs.storage:8333, as the examples'
	// platforms name it.
	Service string `json:"service"`
	Bucket  string `json:"bucket"`
	Region  string `json:"region"`
	// The keys of the store's one identity, made at each start.
	AccessKey string `json:"accessKey"`
	SecretKey string `json:"secretKey"`
	// Secret names the Secret of the keys (keys accessKey and secretKey)
	// that Argo's artifact repository names; credentials makes it in a
	// namespace.
	Secret string `json:"secret"`
	// Image is the rclone image (scripts/e2e/images.sh): the Debian root
	// filesystem with /usr/local/bin/rclone, its entrypoint.
	Image string `json:"image"`

	client *minio.Client
}

var (
	theObjectStore     *objectStore
	theObjectStoreErr  error
	theObjectStoreOnce sync.Once
)

// e2eObjectStore reads the facts of the store that up.sh started, and
// connects to it.
func e2eObjectStore(t *testing.T) *objectStore {
	t.Helper()
	theObjectStoreOnce.Do(func() {
		path := envOr("E2E_OBJECTSTORE", filepath.Join(repoRoot, ".e2e", "run", "objectstore.json"))
		data, err := os.ReadFile(path)
		if err != nil {
			theObjectStoreErr = fmt.Errorf("no object store in the e2e cluster (scripts/e2e/objectstore.sh "+
				"writes %s): %v", path, err)
			return
		}
		s := &objectStore{}
		if err := json.Unmarshal(data, s); err != nil {
			theObjectStoreErr = fmt.Errorf("%s: %v", path, err)
			return
		}
		s.client, err = s.connect(s.AccessKey, s.SecretKey)
		theObjectStore, theObjectStoreErr = s, err
	})
	if theObjectStoreErr != nil {
		t.Fatal(theObjectStoreErr)
	}
	return theObjectStore
}

// connect is a client of the store with those keys (none: anonymous).
func (s *objectStore) connect(accessKey, secretKey string) (*minio.Client, error) {
	return minio.New(s.Endpoint, &minio.Options{
		Creds:  credentials.NewStaticV4(accessKey, secretKey, ""),
		Region: s.Region,
	})
}

// credentials makes the store's Secret in namespace ns (the keys that an
// artifact repository's accessKeySecret and secretKeySecret name, and that
// the rclone image's steps read into RCLONE_S3_ACCESS_KEY_ID and
// RCLONE_S3_SECRET_ACCESS_KEY).
func (s *objectStore) credentials(t *testing.T, c *cluster, ns string) {
	t.Helper()
	c.namespace(t, ns)
	secret, _ := json.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata":   map[string]string{"name": s.Secret, "namespace": ns},
		"stringData": map[string]string{"accessKey": s.AccessKey, "secretKey": s.SecretKey},
	})
	c.must(t, string(secret), "apply", "-f", "-")
}

// s3Repository is the store's bucket at endpoint (s.Endpoint or
// s.Service) as an Argo artifact repository, as the controller's default
// (scripts/e2e/argo.sh) has it too; keyFormat is where an output artifact
// that names no key goes.
func (s *objectStore) s3Repository(endpoint, keyFormat string) wfv1.ArtifactRepository {
	return wfv1.ArtifactRepository{S3: &wfv1.S3ArtifactRepository{
		S3Bucket: wfv1.S3Bucket{
			Endpoint: endpoint, Bucket: s.Bucket, Region: s.Region, Insecure: new(true),
			AccessKeySecret: s.secretKey("accessKey"),
			SecretKeySecret: s.secretKey("secretKey"),
		},
		KeyFormat: keyFormat,
	}}
}

func (s *objectStore) secretKey(key string) *corev1.SecretKeySelector {
	return &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: s.Secret}, Key: key}
}

// artifactRepositories makes namespace ns's artifact-repositories
// ConfigMap, whose key default (the one its annotation names) is the
// store's bucket at endpoint, and the Secret it names. Argo takes a namespace's
// ConfigMap before the controller's default
// (workflow/artifactrepositories/artifactrepositories.go, Resolve, in
// Argo v3.7.18 and v4.0.7).
func (s *objectStore) artifactRepositories(t *testing.T, c *cluster, ns, endpoint, keyFormat string) {
	t.Helper()
	s.credentials(t, c, ns)
	repo, err := yaml.Marshal(s.s3Repository(endpoint, keyFormat))
	if err != nil {
		t.Fatal(err)
	}
	cm, _ := json.Marshal(map[string]any{
		"apiVersion": "v1", "kind": "ConfigMap",
		"metadata": map[string]any{
			"name": "artifact-repositories", "namespace": ns,
			"annotations": map[string]string{"workflows.argoproj.io/default-artifact-repository": "default"},
		},
		"data": map[string]string{"default": string(repo)},
	})
	c.must(t, string(cm), "apply", "-f", "-")
}

// objects lists the objects under prefix, each with the sha256 of its
// bytes as the store returns them.
func (s *objectStore) objects(t *testing.T, prefix string) map[string]string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got := map[string]string{}
	for o := range s.client.ListObjectsIter(ctx, s.Bucket, minio.ListObjectsOptions{Prefix: prefix, Recursive: true}) {
		if o.Err != nil {
			t.Fatalf("listing %s/%s: %v", s.Bucket, prefix, o.Err)
		}
		obj, err := s.client.GetObject(ctx, s.Bucket, o.Key, minio.GetObjectOptions{})
		if err != nil {
			t.Fatalf("getting %s: %v", o.Key, err)
		}
		h := sha256.New()
		n, err := io.Copy(h, obj)
		obj.Close()
		if err != nil {
			t.Fatalf("reading %s: %v", o.Key, err)
		}
		if n != o.Size {
			t.Errorf("%s: read %d bytes, listed as %d", o.Key, n, o.Size)
		}
		got[o.Key] = hex.EncodeToString(h.Sum(nil))
	}
	return got
}
