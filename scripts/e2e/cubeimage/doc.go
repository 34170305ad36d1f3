// Command cubeimage lays out a cube's image as its Dockerfile builds it,
// on the e2e node's shared Debian root filesystem instead of its base
// image, for the real-cube tests:
//
//	cubeimage -base DIR [-drop-user NAME] [-whiteout PATH]... [-env K=V]... SPEC OUT
//
// SPEC is a cube's mlcube.yaml (its docker.build_context and build_file,
// as MLCube's docker runner reads them) or a Dockerfile; DIR is the root
// filesystem the image starts from. OUT receives layer/ (the image's one
// layer of its own), config.json and index.json (its entry of Argo's image
// index). What a Dockerfile asks that cannot be given fails, naming the
// Dockerfile, the line and the instruction.
package main
