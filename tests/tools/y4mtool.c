/* y4mtool: the project's own clip generator and y4m inspector, used by the
 * tests and by samples/make_sample.sh (so nothing depends on FFmpeg).
 *
 *   y4mtool gen W H N [FPS_NUM FPS_DEN [C420|C422|C444|Cmono]]  > clip.y4m
 *       a panning textured background with a moving disc; frame k is a pure
 *       function of k, so every run gives the same bytes
 *   y4mtool shift W H N DX DY > clip.y4m
 *       a smooth texture translated by (DX, DY) pixels per frame
 *   y4mtool info FILE           prints "W H FPSNUM FPSDEN FRAMES"
 *   y4mtool same A I B J        exit 0 when frame I of A equals frame J of B
 *   y4mtool psnr A I B J        PSNR-Y of frame J of B against frame I of A
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double texture(double x, double y)
{
    return 128 + 40 * sin(x * 0.11 + 0.7 * sin(y * 0.05)) + 30 * cos(y * 0.13 + x * 0.021) +
           20 * sin((x + y) * 0.31);
}

static uint8_t clip8(double v)
{
    return (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : lrint(v));
}

static int gen(int argc, char **argv, int shift_mode)
{
    if (argc < 5) return 2;
    int w = atoi(argv[2]), h = atoi(argv[3]), n = atoi(argv[4]);
    double dx = 0, dy = 0;
    long fn = 25, fd = 1;
    const char *cs = "420jpeg";
    if (shift_mode) {
        if (argc < 7) return 2;
        dx = atof(argv[5]);
        dy = atof(argv[6]);
    } else {
        if (argc >= 7) { fn = atol(argv[5]); fd = atol(argv[6]); }
        if (argc >= 8) cs = argv[7] + 1;
    }
    if (w < 1 || h < 1 || n < 0) return 2;
    int cw = (w + 1) / 2, ch = (h + 1) / 2;
    if (!strcmp(cs, "444")) cw = w, ch = h;
    else if (!strcmp(cs, "422")) ch = h;
    const int mono = !strcmp(cs, "mono");
    printf("YUV4MPEG2 W%d H%d F%ld:%ld Ip A1:1 C%s\n", w, h, fn, fd, cs);
    uint8_t *row = malloc((size_t)(w > cw ? w : cw));
    for (int k = 0; k < n; k++) {
        printf("FRAME\n");
        double ox = shift_mode ? -dx * k : -2.0 * k, oy = shift_mode ? -dy * k : -1.0 * k;
        double bx = w * 0.2 + 3.0 * k, by = h * 0.5 + 10 * sin(k * 0.2), r = (w < h ? w : h) * 0.15;
        for (int y = 0; y < h; y++) {
            for (int x = 0; x < w; x++) {
                double v = texture(x + ox, y + oy);
                if (!shift_mode && (x - bx) * (x - bx) + (y - by) * (y - by) < r * r)
                    v = 230 - 0.3 * (x - bx);
                row[x] = clip8(v);
            }
            fwrite(row, 1, w, stdout);
        }
        if (mono) continue;
        for (int p = 0; p < 2; p++)
            for (int y = 0; y < ch; y++) {
                for (int x = 0; x < cw; x++) {
                    double sx = (double)x * w / cw, sy = (double)y * h / ch;
                    row[x] = clip8(128 + (p ? -1 : 1) * 0.3 * (texture(sy + oy, sx + ox) - 128));
                }
                fwrite(row, 1, cw, stdout);
            }
    }
    free(row);
    return fflush(stdout) == 0 ? 0 : 1;
}

typedef struct Clip {
    int w, h;
    long fn, fd;
    long frames;
    size_t frame_bytes;
    long header;
    FILE *f;
} Clip;

static int clip_open(Clip *c, const char *path)
{
    memset(c, 0, sizeof *c);
    c->f = fopen(path, "rb");
    if (!c->f) return -1;
    char line[4096];
    if (!fgets(line, sizeof line, c->f) || strncmp(line, "YUV4MPEG2 ", 10)) {
        fclose(c->f);
        return -1;
    }
    for (char *t = strtok(line + 10, " \n"); t; t = strtok(NULL, " \n")) {
        if (t[0] == 'W') c->w = atoi(t + 1);
        if (t[0] == 'H') c->h = atoi(t + 1);
        if (t[0] == 'F') sscanf(t + 1, "%ld:%ld", &c->fn, &c->fd);
    }
    c->header = ftell(c->f);
    c->frame_bytes = (size_t)c->w * c->h + 2 * (size_t)((c->w + 1) / 2) * ((c->h + 1) / 2);
    fseek(c->f, 0, SEEK_END);
    long size = ftell(c->f) - c->header;
    c->frames = size / (long)(c->frame_bytes + 6);
    return 0;
}

static uint8_t *clip_frame(Clip *c, long i)
{
    if (i < 0 || i >= c->frames) return NULL;
    uint8_t *buf = malloc(c->frame_bytes);
    fseek(c->f, c->header + i * (long)(c->frame_bytes + 6) + 6, SEEK_SET);
    if (fread(buf, 1, c->frame_bytes, c->f) != c->frame_bytes) {
        free(buf);
        return NULL;
    }
    return buf;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "gen")) return gen(argc, argv, 0);
    if (argc >= 2 && !strcmp(argv[1], "shift")) return gen(argc, argv, 1);
    if (argc == 3 && !strcmp(argv[1], "info")) {
        Clip c;
        if (clip_open(&c, argv[2]) < 0) return 1;
        printf("%d %d %ld %ld %ld\n", c.w, c.h, c.fn, c.fd, c.frames);
        fclose(c.f);
        return 0;
    }
    if (argc == 6 && (!strcmp(argv[1], "same") || !strcmp(argv[1], "psnr"))) {
        Clip a, b;
        if (clip_open(&a, argv[2]) < 0) return 2;
        if (clip_open(&b, argv[4]) < 0) {
            fclose(a.f);
            return 2;
        }
        uint8_t *fa = clip_frame(&a, atol(argv[3])), *fb = clip_frame(&b, atol(argv[5]));
        int ret = 2;
        if (fa && fb && a.frame_bytes == b.frame_bytes) {
            if (!strcmp(argv[1], "same")) {
                ret = memcmp(fa, fb, a.frame_bytes) ? 1 : 0;
            } else {
                double se = 0;
                for (size_t i = 0; i < (size_t)a.w * a.h; i++)
                    se += (fa[i] - fb[i]) * (double)(fa[i] - fb[i]);
                printf("%.3f\n", se ? 10 * log10(255.0 * 255.0 * a.w * a.h / se) : 100.0);
                ret = 0;
            }
        }
        free(fa);
        free(fb);
        fclose(a.f);
        fclose(b.f);
        return ret;
    }
    fprintf(stderr, "usage: y4mtool gen|shift|info|same|psnr ... (see the source)\n");
    return 2;
}
