# The kernel protocol for Perl kernels (docs/method/protocol.md), mirroring native/harness.c.
#
# Perl cannot pin itself without a module from outside its core; the engine pins
# the process before exec and the harness reports what /proc says. It raises its
# own priority when allowed (setpriority), times with Time::HiRes's
# CLOCK_MONOTONIC, calibrates, verifies after every sample and prints JSON lines.
package LayertaxHarness;
use strict;
use warnings;
use Time::HiRes qw(clock_gettime clock_getres CLOCK_MONOTONIC);
use JSON::PP ();
use Exporter 'import';
our @EXPORT_OK = qw(main);

my $JSON = JSON::PP->new->allow_nonref;

sub emit {
    my ($pairs) = @_;
    # Keys in the given order: a list of pairs, not a hash (whose order is random).
    my @parts;
    for (my $i = 0; $i < @$pairs; $i += 2) {
        push @parts, $JSON->encode($pairs->[$i]) . ':' . $JSON->encode($pairs->[$i + 1]);
    }
    syswrite(STDOUT, '{' . join(',', @parts) . "}\n");
}

sub now_ns { return int(clock_gettime(CLOCK_MONOTONIC) * 1e9); }

sub proc_status {
    my ($key) = @_;
    open(my $fh, '<', '/proc/thread-self/status') or return '?';
    while (my $line = <$fh>) {
        return $1 if $line =~ /^\Q$key\E:\s*(.*?)\s*$/;
    }
    return '?';
}

sub context_switches {
    my ($v, $i) = (proc_status('voluntary_ctxt_switches'), proc_status('nonvoluntary_ctxt_switches'));
    return ($v =~ /^\d+$/ && $i =~ /^\d+$/) ? [$v, $i] : undef;
}

sub parse_options {
    my @argv = @_;
    my %o = (case => undef, dir => undef, samples => 5, min_sample_ns => 10_000_000, iters => 0, raise => 0);
    my %numeric = ('--samples' => 'samples', '--min-sample-ns' => 'min_sample_ns', '--iters' => 'iters', '--cpu' => 'cpu');
    while (@argv) {
        my $a = shift @argv;
        if ($a eq '--raise-priority') { $o{raise} = 1; next; }
        die "missing value for $a\n" unless @argv;
        my $v = shift @argv;
        if ($a eq '--case') { $o{case} = $v; }
        elsif ($a eq '--dir') { $o{dir} = $v; }
        elsif ($numeric{$a} && $v =~ /^\d+$/) { $o{$numeric{$a}} = $v + 0; }
        else { die "bad option or value: $a $v\n"; }
    }
    die "--samples must be positive\n" if $o{samples} < 1;
    return \%o;
}

sub priority {
    my ($raise) = @_;
    return 'unchanged (not requested)' unless $raise;
    return 'nice -10' if setpriority(0, 0, -10);
    return "unchanged (not permitted: $!)";
}

sub timed {
    my ($c, $state, $iters) = @_;
    my $s0 = context_switches();
    my $t0 = now_ns();
    $c->{run}->($state, $iters);
    my $ns = now_ns() - $t0 || 1;
    my $s1 = context_switches();
    $c->{verify}->($state);
    my @sample = (case => $c->{name}, iters => $iters, ops => $iters * $c->{ops_per_iter}, ns => $ns);
    push @sample, (csw_vol => $s1->[0] - $s0->[0], csw_invol => $s1->[1] - $s0->[1]) if $s0 && $s1;
    return \@sample;
}

# main($kernel_name, [cases]): each case is {name, description, ops_per_iter, setup, run, verify};
# setup dies with "SKIP: why" when the case cannot run here. Returns the exit code.
sub main {
    my ($kernel, $cases) = @_;
    my $o = eval { parse_options(@ARGV) };
    if (!$o) { print STDERR $@; return 2; }
    my ($c) = grep { $_->{name} eq ($o->{case} // '') } @$cases;
    if (!$c) { emit([case => $o->{case}, error => 'no such case in this kernel']); return 1; }
    my $prio = priority($o->{raise});
    my $state = eval { $c->{setup}->($o->{dir}) };
    if (my $err = $@) {
        chomp $err;
        if ($err =~ /^SKIP: (.*)/s) { emit([case => $c->{name}, skip => $1]); return 3; }
        emit([case => $c->{name}, error => "setup: $err"]);
        return 1;
    }
    my $ok = eval {
        my $cpus = proc_status('Cpus_allowed_list');
        my $overhead = 1e18;
        for (1 .. 2000) {
            my $a = now_ns();
            my $d = now_ns() - $a;
            $overhead = $d if $d < $overhead;
        }
        emit([kernel => $kernel, case => $c->{name}, description => $c->{description}, language => 'perl',
              runtime => sprintf('perl %vd', $^V), clock => 'Time::HiRes clock_gettime(CLOCK_MONOTONIC)',
              clock_res_ns => int(clock_getres(CLOCK_MONOTONIC) * 1e9 + 0.5) || 1, clock_overhead_ns => $overhead,
              ops_per_iter => $c->{ops_per_iter}, pinned => ($cpus =~ /^\d+$/ ? JSON::PP::true : JSON::PP::false),
              pin => "cpus allowed $cpus (set by the engine)", priority => $prio]);
        my $iters = $o->{iters};
        if (!$iters) {
            $iters = 1;
            for (;;) {
                my $ns = {@{ timed($c, $state, $iters) }}->{ns};
                last if $ns >= $o->{min_sample_ns};
                my $f = 1.25 * $o->{min_sample_ns} / $ns;
                $f = 2 if $f < 2;
                $f = 100 if $f > 100;
                $iters = int($iters * $f) + 1;
            }
        }
        emit(timed($c, $state, $iters)) for 1 .. $o->{samples};
        1;
    };
    if (!$ok) {
        my $err = $@;
        chomp $err;
        emit([case => $c->{name}, error => $err]);
        return 1;
    }
    $c->{teardown}->($state) if $c->{teardown};
    return 0;
}

1;
