# SPDX-License-Identifier: GPL-2.0-or-later
"""cosched-report: each job's energy from Slurm's accounting, per job and
aggregated, with what cosched decided for it (cosched-report(1)).

The modules, one idea each:
  accounting  sacct --parsable2 run and read (rows, times, host lists)
  record      the decision record in a job's AdminComment
  energy      jobs from sacct's lines: energy, co-runners, savings, sums
  output      the table, --csv and --json; escaping for a terminal
  plot        --plot: the figure and the series it draws
  cli         options, errors and exit statuses
"""

PROG = "cosched-report"
VERSION = "0.3.0"  # configure.ac AC_INIT
# The version of --json's document (cosched-report(1), JSON).
SCHEMA = 1
# The decision record major this report reads (cosched(8), DECISION RECORD).
RECORD_MAJOR = 1
