/* The smallest program on libomcti: two pictures of a square that moves
 * 8 pixels to the right, and the picture half-way between them, which
 * should show the square 4 pixels along. Builds against the installed
 * library:
 *
 *     cc example.c $(pkg-config --cflags --libs omcti) -o example
 *     ./example
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omcti.h>

enum { W = 96, H = 64 };

/* A grey picture with a textured 24x24 square at column x0. */
static void draw(OmctiPicture *p, uint8_t *buf, int x0)
{
    const int cw = (W + 1) / 2, ch = (H + 1) / 2;
    p->data[0] = buf;
    p->data[1] = buf + W * H;
    p->data[2] = buf + W * H + cw * ch;
    p->stride[0] = W;
    p->stride[1] = p->stride[2] = cw;
    p->width = W;
    p->height = H;
    memset(buf, 128, (size_t)W * H + 2 * (size_t)cw * ch);
    for (int y = 20; y < 44; y++)
        for (int x = x0; x < x0 + 24; x++)
            buf[y * W + x] = (uint8_t)(40 + ((x - x0) * 7 + y * 13) % 160);
}

/* Column of the square's left edge in row 32 (first pixel not grey). */
static int left_edge(const OmctiPicture *p)
{
    for (int x = 0; x < W; x++)
        if (abs(p->data[0][32 * W + x] - 128) > 8)
            return x;
    return -1;
}

int main(void)
{
    const size_t size = (size_t)W * H + 2 * (size_t)((W + 1) / 2) * ((H + 1) / 2);
    uint8_t *a = malloc(size), *b = malloc(size), *m = malloc(size);
    if (!a || !b || !m)
        return 1;
    OmctiPicture pa, pb, mid;
    draw(&pa, a, 30);
    draw(&pb, b, 38);
    draw(&mid, m, 0);

    char err[256];
    OmctiSettings s;
    omcti_default_settings(&s);
    s.engine = "cpu";
    OmctiContext *c;
    if (omcti_open(&c, &s, W, H, err, sizeof err) < 0) {
        fprintf(stderr, "example: %s\n", err);
        return 1;
    }
    if (omcti_send_picture(c, &pa) < 0 || omcti_send_picture(c, &pb) < 0 ||
        omcti_interpolate(c, 1, 2, &mid) < 0) {
        fprintf(stderr, "example: %s\n", omcti_last_error(c));
        omcti_close(&c);
        return 1;
    }
    const int x0 = left_edge(&pa), xm = left_edge(&mid), x1 = left_edge(&pb);
    printf("omcti %s: square edge at x = %d, %d, %d (t = 0, 1/2, 1)\n", omcti_version(), x0,
           xm, x1);
    const int ok = x0 >= 0 && 2 * (xm - x0) == x1 - x0; /* half-way */
    omcti_close(&c);
    free(a);
    free(b);
    free(m);
    return ok ? 0 : 1;
}
