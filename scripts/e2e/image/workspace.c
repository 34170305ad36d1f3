/* The program of mlcube-e2e/workspace:1, kept in the image's /workspace as
 * MLCube's template keeps a cube's (ENTRYPOINT python3 /workspace/...):
 * given --out_dir=DIR, it makes DIR and writes DIR/result.txt naming
 * itself. Static, so that the image needs no other file. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int main(int argc, char **argv) {
  const char *flag = "--out_dir=", *dir = NULL;
  char path[4096];
  FILE *f;
  for (int i = 1; i < argc; i++)
    if (strncmp(argv[i], flag, strlen(flag)) == 0) dir = argv[i] + strlen(flag);
  if (dir == NULL) {
    fprintf(stderr, "%s: no %sDIR\n", argv[0], flag);
    return 2;
  }
  if (mkdir(dir, 0755) != 0 && errno != EEXIST) {
    perror(dir);
    return 1;
  }
  snprintf(path, sizeof path, "%s/result.txt", dir);
  if ((f = fopen(path, "w")) == NULL) {
    perror(path);
    return 1;
  }
  fprintf(f, "written by %s\n", argv[0]);
  return fclose(f) != 0;
}
