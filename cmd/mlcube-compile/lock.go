package main

import (
	"context"
	"fmt"
	"time"

	"github.com/google/go-containerregistry/pkg/authn"
	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/urfave/cli/v2"
	"sigs.k8s.io/yaml"

	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/driver"
)

// lockTimeout bounds the registry's answer about one image.
const lockTimeout = time.Minute

// lockHeader says what lock prints and where it goes.
const lockHeader = `# The digest each image tag the run names has in its registry now
# (mlcube-compile lock). In the platform file, a step then runs
# IMAGE@DIGEST, and the cache keys it by the digest.
`

// lockCommand prints the platform's imageDigests for the run: each image
// tag its steps name, with the digest its registry gives the tag.
func lockCommand(s *session) *cli.Command {
	return &cli.Command{
		Name:  "lock",
		Usage: "print the digest of each image tag the run names, from its registry, as the platform's imageDigests",
		UsageText: "mlcube-compile lock [--mlcube PATH] [--platform FILE|-] [--task FILE|-] [-f VALUES]... " +
			"[--set NAME=VALUE]... [--disable CODE]... [--insecure] [--error-format text|json|github] [-v] " +
			"[PATH|NAME=PATH]...",
		Flags: append(specFlags(),
			&cli.BoolFlag{Name: "insecure",
				Usage: "reach every registry over plain HTTP (one on localhost or a private address is reached so already)"},
			errorFormatFlag(),
			verboseFlag(),
		),
		Action: func(c *cli.Context) error {
			if err := s.readFormat(c); err != nil {
				return err
			}
			w, err := workspace(c, s)
			if err != nil {
				return err
			}
			tags, err := driver.ImageTags(w)
			if err != nil {
				return err
			}
			digests, err := resolveTags(c.Context, tags, c.Bool("insecure"))
			if err != nil {
				return err
			}
			out, err := yaml.Marshal(map[string]any{"imageDigests": digests})
			if err != nil {
				return err
			}
			_, err = fmt.Fprintf(s.stdout, "%s%s", lockHeader, out)
			return err
		},
	}
}

// resolveTags asks each image's registry for the digest of its tag, with
// the credentials docker login keeps. An image it cannot resolve is an
// error at the first step that names it.
func resolveTags(ctx context.Context, tags []driver.ImageTag, insecure bool) (map[string]string, error) {
	var opts []name.Option
	if insecure {
		opts = append(opts, name.Insecure)
	}
	digests := map[string]string{}
	var diags diag.Diagnostics
	for _, t := range tags {
		digest, err := resolveTag(ctx, t.Image, opts)
		if err != nil {
			diags = append(diags, diag.Errorf(diag.ImageUnresolved, t.Step.Loc,
				"cannot resolve image %s of step %s to a digest: %v", t.Image, t.Step.Written, err))
			continue
		}
		digests[t.Image] = digest
	}
	if len(diags) > 0 {
		return nil, diags
	}
	return digests, nil
}

// resolveTag is the digest image's registry gives its tag: the digest of
// the manifest or index a pull of the tag reads first.
func resolveTag(ctx context.Context, image string, opts []name.Option) (string, error) {
	ref, err := name.ParseReference(image, opts...)
	if err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(ctx, lockTimeout)
	defer cancel()
	ropts := []remote.Option{remote.WithContext(ctx), remote.WithAuthFromKeychain(authn.DefaultKeychain)}
	if d, err := remote.Head(ref, ropts...); err == nil {
		return d.Digest.String(), nil
	}
	// A registry that answers no HEAD, or one without its digest: the
	// manifest itself.
	d, err := remote.Get(ref, ropts...)
	if err != nil {
		return "", err
	}
	return d.Digest.String(), nil
}
