//go:build e2e

package e2e

import (
	"bytes"
	le "encoding/binary"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"
)

// chestXRayData is a tiny dataset in the chest X-ray tutorial's raw
// format (../shared/cubes-src/README.md, "Chest X-ray data"): 8-bit
// grayscale PNGs (image.Gray, which image/png writes as one 8-bit
// channel: PIL's "L") named <Image ID>.png, and labels.csv with the
// columns the preparator's parameters name. Every pixel comes from a
// generator of a fixed seed, so the files, and what the cubes compute
// from them, are the same at each run.
type chestXRayData struct {
	labels []string       // labels_list, in its order
	truth  map[string]int // each image's label, by its index in labels
	files  map[string][]byte
	// threshold is the metrics cube's (its parameters.yaml).
	threshold float64
}

// newChestXRayData makes n images of size×size pixels, cycling through
// the labels classes (indexes into labelsList); the ids are digits and
// an underscore, which the model's name.strip(".npy") leaves whole.
func newChestXRayData(labelsList []string, n, size int, classes []int) (*chestXRayData, error) {
	d := &chestXRayData{labels: labelsList, truth: map[string]int{}, files: map[string][]byte{}}
	rng := rand.New(rand.NewPCG(50, 2026))
	csv := "Image ID,Label\n"
	for i := range n {
		id := fmt.Sprintf("%08d_%03d", i, i%3)
		img := image.NewGray(image.Rect(0, 0, size, size))
		for p := range img.Pix {
			img.Pix[p] = uint8(rng.IntN(256))
		}
		var buf bytes.Buffer
		if err := png.Encode(&buf, img); err != nil {
			return nil, err
		}
		d.files["images/"+id+".png"] = buf.Bytes()
		class := classes[i%len(classes)]
		d.truth[id] = class
		csv += id + "," + labelsList[class] + "\n"
	}
	d.files["labels/labels.csv"] = []byte(csv)
	return d, nil
}

// oneHot is the label of id as prepare.py encodes it:
// np.eye(len(labels_list), dtype=int)[label].
func (d *chestXRayData) oneHot(id string) []int64 {
	v := make([]int64, len(d.labels))
	v[d.truth[id]] = 1
	return v
}

// counts is how many images each label has, as statistics.py counts.
func (d *chestXRayData) counts() map[string]int {
	out := map[string]int{}
	for _, l := range d.labels {
		out[l] = 0
	}
	for _, class := range d.truth {
		out[d.labels[class]]++
	}
	return out
}

// chestXRayMetrics are the metrics the tutorial's metrics.py writes.
type chestXRayMetrics struct {
	Accuracy float64 `json:"Accuracy"`
	AUC      float64 `json:"AUC"`
}

// recomputeMetrics computes what metrics.py (calculate_metrics) computes
// from the predictions and the one-hot labels of the same ids:
// global_accuracy, the mean over the label columns of sklearn's
// accuracy_score of labels against score > threshold; and global_auc, the
// sum over the columns of roc_auc_score divided by the number of columns,
// where a column whose labels hold one class only adds nothing (sklearn
// raises ValueError, which global_auc skips). If no column holds both
// classes the sum stays Python's int 0, and .tolist() on 0/14 raises
// AttributeError: the cube fails, and so does this.
func recomputeMetrics(preds map[string][]float64, labels map[string][]int64,
	threshold float64) (chestXRayMetrics, error) {
	var ids []string
	for id := range preds {
		if _, ok := labels[id]; !ok {
			return chestXRayMetrics{}, fmt.Errorf("a prediction for %q, which has no label", id)
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return chestXRayMetrics{}, errors.New("no predictions")
	}
	cols := len(labels[ids[0]])
	var acc, auc float64
	scored := 0
	for c := range cols {
		var ys []int64
		var ss []float64
		correct := 0
		for _, id := range ids {
			y, s := labels[id][c], preds[id][c]
			ys, ss = append(ys, y), append(ss, s)
			if (s > threshold) == (y == 1) {
				correct++
			}
		}
		acc += float64(correct) / float64(len(ids))
		if a, ok := rocAUC(ys, ss); ok {
			auc += a
			scored++
		}
	}
	if scored == 0 {
		return chestXRayMetrics{},
			errors.New("no label column holds both classes: global_auc's sum stays the int 0, and metrics.py fails on .tolist()")
	}
	return chestXRayMetrics{Accuracy: acc / float64(cols), AUC: auc / float64(cols)}, nil
}

// rocAUC is the area under the ROC curve of scores against binary
// labels, as sklearn's roc_auc_score computes it for two classes: the
// trapezoids of the curve through every distinct threshold, which is the
// share of (positive, negative) pairs the scores order rightly, a tie
// counting one half. ok is false when the labels hold one class.
func rocAUC(labels []int64, scores []float64) (float64, bool) {
	var pos, neg []float64
	for i, y := range labels {
		if y == 1 {
			pos = append(pos, scores[i])
		} else {
			neg = append(neg, scores[i])
		}
	}
	if len(pos) == 0 || len(neg) == 0 {
		return 0, false
	}
	var right float64
	for _, p := range pos {
		for _, n := range neg {
			switch {
			case p > n:
				right++
			case p == n:
				right += 0.5
			}
		}
	}
	return right / float64(len(pos)*len(neg)), true
}

// parseMetrics reads results.yaml as metrics.py writes it (yaml.safe_dump
// of two floats).
func parseMetrics(data []byte) (chestXRayMetrics, error) {
	var m map[string]float64
	if err := yaml.UnmarshalStrict(data, &m); err != nil {
		return chestXRayMetrics{}, err
	}
	acc, ok1 := m["Accuracy"]
	auc, ok2 := m["AUC"]
	if !ok1 || !ok2 || len(m) != 2 {
		return chestXRayMetrics{}, fmt.Errorf("want Accuracy and AUC only, got %v", m)
	}
	return chestXRayMetrics{Accuracy: acc, AUC: auc}, nil
}

var npyHeader = regexp.MustCompile(`'descr':\s*'([^']+)',\s*'fortran_order':\s*False,\s*'shape':\s*\(([0-9, ]*)\)`)

// readNPY reads a NumPy .npy file of format 1.0 or 2.0 (what np.save
// writes): its dtype, its shape and its bytes.
func readNPY(data []byte) (string, []int, []byte, error) {
	if len(data) < 10 || string(data[:6]) != "\x93NUMPY" {
		return "", nil, nil, errors.New("not a .npy file")
	}
	var hlen, start int
	switch data[6] {
	case 1:
		hlen, start = int(le.LittleEndian.Uint16(data[8:10])), 10
	case 2, 3:
		if len(data) < 12 {
			return "", nil, nil, errors.New("a truncated .npy header")
		}
		hlen, start = int(le.LittleEndian.Uint32(data[8:12])), 12
	default:
		return "", nil, nil, fmt.Errorf(".npy format %d", data[6])
	}
	if start+hlen > len(data) {
		return "", nil, nil, errors.New("a truncated .npy header")
	}
	m := npyHeader.FindStringSubmatch(string(data[start : start+hlen]))
	if m == nil {
		return "", nil, nil, fmt.Errorf("a .npy header not understood: %q", data[start:start+hlen])
	}
	var shape []int
	for _, f := range strings.Split(m[2], ",") {
		if f = strings.TrimSpace(f); f != "" {
			n, err := strconv.Atoi(f)
			if err != nil {
				return "", nil, nil, err
			}
			shape = append(shape, n)
		}
	}
	return m[1], shape, data[start+hlen:], nil
}

// npyInt64s reads a one-dimensional .npy of little-endian int64s.
func npyInt64s(data []byte) ([]int64, error) {
	dtype, shape, body, err := readNPY(data)
	if err != nil {
		return nil, err
	}
	if dtype != "<i8" || len(shape) != 1 || len(body) != 8*shape[0] {
		return nil, fmt.Errorf("want a vector of <i8, got %s %v (%d bytes)", dtype, shape, len(body))
	}
	out := make([]int64, shape[0])
	for i := range out {
		out[i] = int64(le.LittleEndian.Uint64(body[8*i:]))
	}
	return out, nil
}

// TestE2EChestXRayMetricsRecomputed checks recomputeMetrics and the .npy
// reader on values worked by hand, without a cluster: ties count one
// half in the AUC, a column of one class adds nothing to the AUC's sum
// but counts in its mean, a score equal to the threshold is a negative,
// and no column of both classes fails as metrics.py does.
func TestE2EChestXRayMetricsRecomputed(t *testing.T) {
	t.Parallel()
	labels := map[string][]int64{"a": {1, 0, 0}, "b": {0, 1, 0}, "c": {1, 0, 0}, "d": {0, 1, 0}}
	preds := map[string][]float64{"a": {0.9, 0.2, 0.1}, "b": {0.4, 0.6, 0.7}, "c": {0.4, 0.8, 0.5}, "d": {0.1, 0.6, 0.9}}
	got, err := recomputeMetrics(preds, labels, 0.5)
	if err != nil {
		t.Fatal(err)
	}
	// Accuracy: columns 3/4, 3/4, 2/4 (c's 0.5 is not above 0.5).
	// AUC: column 0 orders 3.5 of 4 pairs (a tie at 0.4), column 1 2 of
	// 4, column 2 holds one class: (0.875 + 0.5) / 3.
	want := chestXRayMetrics{Accuracy: (0.75 + 0.75 + 0.5) / 3, AUC: (0.875 + 0.5) / 3}
	if got != want {
		t.Errorf("recomputed %+v, want %+v", got, want)
	}
	one := map[string][]int64{"a": {0, 1}, "b": {0, 1}}
	if _, err := recomputeMetrics(map[string][]float64{"a": {0.1, 0.2}, "b": {0.3, 0.4}}, one, 0.5); err == nil {
		t.Error("no column of both classes: recomputed, want the error metrics.py fails with")
	}
	// np.save(f, np.eye(3, dtype=int)[1]): format 1.0, '<i8', (3,).
	head := "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }"
	head += strings.Repeat(" ", 117-len(head)) + "\n"
	npy := append([]byte("\x93NUMPY\x01\x00v\x00"+head), make([]byte, 24)...)
	npy[10+len(head)+8] = 1
	if v, err := npyInt64s(npy); err != nil || fmt.Sprint(v) != "[0 1 0]" {
		t.Errorf("npyInt64s: %v, %v; want [0 1 0]", v, err)
	}
	if m, err := parseMetrics([]byte("AUC: 0.4583333333333333\nAccuracy: 0.75\n")); err != nil ||
		m.AUC != 0.4583333333333333 {
		t.Errorf("parseMetrics: %+v, %v", m, err)
	}
}
