"""Writers: every output file of a run or comparison is produced here, from computed values only."""
