// Command cubeimage lays out a cube's image as its Dockerfile builds it,
// on the e2e node's shared Debian root filesystem instead of its base
// image, for the real-cube tests (issue 50):
//
//	cubeimage -base DIR [-drop-user NAME] [-whiteout PATH]... [-env K=V]... SPEC OUT
//
// SPEC is a cube's mlcube.yaml, whose docker.build_context (relative to
// the file's folder, "." by default) is the build context and whose
// docker.build_file (in the context, "Dockerfile" by default) is the
// Dockerfile, as MLCube's docker runner builds it; or a Dockerfile, whose
// folder is the context (a MedPerf container_config.yaml cube's, and
// MLCube 1.0's build/ folder). DIR is the root filesystem the image
// starts from (images.sh's base image, unpacked): the instructions read
// its accounts, its installed packages and its folders.
//
// OUT receives layer/, the files of the image's one layer of its own
// (with whiteouts for each -whiteout path, which the image hides), and
// config.json, the "config" of the image's configuration: Entrypoint,
// Cmd, Env (the -env variables, then the base's and the Dockerfile's),
// WorkingDir and User; and index.json, its entry of Argo's image index
// (entrypoint and cmd).
//
// Each instruction is interpreted as Docker does (BuildKit's Dockerfile
// frontend); what a cube's Dockerfile could ask that this cannot give
// fails, naming the Dockerfile, the line and the instruction:
//   - FROM: only the base images whose CMD and ENV are in bases
//     (python:*, ubuntu:*); their files are not used: the root filesystem
//     stands in for them.
//   - COPY and ADD of local paths (ADD of an archive or URL fails), with
//     the context's .dockerignore.
//   - ENV, WORKDIR, ENTRYPOINT, CMD, USER; LABEL and MAINTAINER are
//     metadata and go nowhere.
//   - RUN, only the commands these cubes run (run.go): pip install of
//     requirements, each of which must map to a Debian package installed
//     in DIR (requirements.go); apt-get install of packages installed in
//     DIR or needed only to build; pip's bootstrap; useradd; chmod.
//
// The files copied keep their content and take the modes a git checkout
// gives them (0644, or 0755 where any execute bit is set; folders 0755),
// owned by root.
package main
