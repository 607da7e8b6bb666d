# The probe kernel in Perl (tests/test_protocol_conformance.py): "count" counts and checks its
# count, "wrong" is always off by one and must be refused, "skip" cannot run here.
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use LayertaxHarness;

sub setup { return {n => 0, expect => 0}; }
sub run_count { my ($c, $iters) = @_; $c->{n}++ for 1 .. $iters; $c->{expect} += $iters; }
sub verify { my ($c) = @_; die "wrong result: expected $c->{expect}, got $c->{n}\n" if $c->{n} != $c->{expect}; }

exit LayertaxHarness::main('probe-perl', [
    {name => 'count', description => 'counts to iters and checks the count', ops_per_iter => 3,
     setup => \&setup, run => \&run_count, verify => \&verify},
    {name => 'wrong', description => 'always one short: a wrong answer', ops_per_iter => 1,
     setup => \&setup, run => sub { run_count(@_); $_[0]{n}--; }, verify => \&verify},
    {name => 'skip', description => 'cannot run here', ops_per_iter => 1,
     setup => sub { die "SKIP: feature X is not available here\n" }, run => \&run_count, verify => \&verify},
]);
