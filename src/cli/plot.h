/* The plot of `omcti eval --plot FILE.png` (plot.c). */
#ifndef OMCTI_CLI_PLOT_H
#define OMCTI_CLI_PLOT_H

/* FILE.png obeys the rules of every output (src/io/output_path.c): an
 * existing file is replaced only with overwrite (-y); a symbolic link to a
 * file is written through; a FIFO or a character device is written in
 * place, never replaced. The plot goes to a temporary file beside FILE.png
 * (beside the link's target), made before the run so that a missing or
 * read-only folder fails at once, and moved into place only when gnuplot
 * succeeded, never over a file that appeared meanwhile without overwrite.
 * For a FIFO or a device it goes to an anonymous temporary file instead
 * (none is made in the node's folder, /dev), copied into the node at the
 * end. */
typedef struct PlotFile {
    char *tmp;      /* the temporary file beside FILE.png; NULL in place  */
    int fd;
    int overwrite;  /* -y                                                 */
    int in_place;   /* FILE.png is a FIFO or a character device           */
} PlotFile;

/* Checks plot (not input, not "-", not existing without overwrite) and
 * makes its temporary file; 0, or the exit code after printing the error
 * line. */
int plot_open(PlotFile *pf, const char *plot, const char *input, int overwrite);

/* Removes the temporary file, if any (after plot_write: nothing left). */
void plot_discard(PlotFile *pf);

/* Draws nseries lines of nframes values each (values[r][k]: the PSNR-Y of
 * rebuilt frame 2k+1), titled by labels, for the input named input, and
 * moves the PNG to plot. 0, or the exit code after printing the error
 * line; pf is discarded either way. */
int plot_write(PlotFile *pf, const char *plot, const char *input, const char *const *labels,
               const double *const *values, int nseries, int nframes);

#endif
