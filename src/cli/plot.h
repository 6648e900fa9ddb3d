/* The plot of `omcti eval --plot FILE.png` (plot.c). */
#ifndef OMCTI_CLI_PLOT_H
#define OMCTI_CLI_PLOT_H

/* The plot goes to a temporary file beside FILE.png, made before the run
 * so that a missing or read-only folder fails at once, and renamed over
 * FILE.png only when gnuplot succeeded. */
typedef struct PlotFile {
    char *tmp;
    int fd;
} PlotFile;

/* Makes the temporary file for plot (not input, not "-"); 0, or the exit
 * code after printing the error line. */
int plot_open(PlotFile *pf, const char *plot, const char *input);

/* Removes the temporary file, if any (after plot_write: nothing left). */
void plot_discard(PlotFile *pf);

/* Draws nseries lines of nframes values each (values[r][k]: the PSNR-Y of
 * rebuilt frame 2k+1), titled by labels, for the input named input, and
 * renames the PNG to plot. 0, or the exit code after printing the error
 * line; pf is discarded either way. */
int plot_write(PlotFile *pf, const char *plot, const char *input, const char *const *labels,
               const double *const *values, int nseries, int nframes);

#endif
