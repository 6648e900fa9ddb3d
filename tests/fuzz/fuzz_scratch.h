/* A private scratch folder for the fuzz targets that need real files (the
 * readers reopen their path, join reads PIECE.sum beside each piece): on
 * /dev/shm when there is one, removed when the fuzzer exits. */
#ifndef OMCTI_FUZZ_SCRATCH_H
#define OMCTI_FUZZ_SCRATCH_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char scratch_dir[64];

static void scratch_remove(void)
{
    DIR *d = opendir(scratch_dir);
    if (d) {
        struct dirent *e;
        char p[512];
        while ((e = readdir(d)))
            if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
                snprintf(p, sizeof p, "%s/%s", scratch_dir, e->d_name);
                unlink(p);
            }
        closedir(d);
    }
    rmdir(scratch_dir);
}

/* The folder's name; exits when none can be made. */
static const char *scratch(void)
{
    if (!scratch_dir[0]) {
        snprintf(scratch_dir, sizeof scratch_dir, "%s/omcti-fuzz-XXXXXX",
                 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
        if (!mkdtemp(scratch_dir)) {
            perror("fuzz: mkdtemp");
            exit(1);
        }
        atexit(scratch_remove);
    }
    return scratch_dir;
}

/* Writes size bytes to dir/name (replacing it); 0 or -1. */
static int scratch_write(const char *name, const void *data, size_t size, char *path,
                         size_t pathlen)
{
    snprintf(path, pathlen, "%s/%s", scratch(), name);
    FILE *f = fopen(path, "wb");
    if (!f) return -1;
    const int bad = fwrite(data, 1, size, f) != size;
    return (fclose(f) != 0 || bad) ? -1 : 0;
}

#endif
