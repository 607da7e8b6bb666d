# scan, Perl: the classic's challenger, line by line with tr/cCgG//, and the same
# tr over 1 MiB blocks read with read() (no line splitting).
use strict;
use warnings;
use FindBin;
use lib $FindBin::Bin;
use LayertaxHarness;

sub setup {
    my $path = $ENV{LAYERTAX_SCAN_FILE} or die "LAYERTAX_SCAN_FILE is not set: scan kernels run under `layertax run scan`\n";
    my $size = $ENV{LAYERTAX_SCAN_BYTES};
    die "$path changed size\n" unless -s $path == $size || ($size == 0 && -z $path);
    open(my $fh, '<:raw', $path) or die "open $path: $!\n";
    return {fh => $fh, expect => $ENV{LAYERTAX_SCAN_COUNT} + 0, got => -1};
}

sub run_lines {
    my ($s, $iters) = @_;
    my $fh = $s->{fh};
    for (1 .. $iters) {
        seek($fh, 0, 0) or die "seek: $!\n";
        my $gc = 0;
        while (my $line = <$fh>) {
            $gc += ($line =~ tr/cCgG//);
        }
        $s->{got} = $gc;
    }
}

sub run_blocks {
    my ($s, $iters) = @_;
    my $fh = $s->{fh};
    for (1 .. $iters) {
        seek($fh, 0, 0) or die "seek: $!\n";
        my ($gc, $buf) = (0, '');
        while (my $n = read($fh, $buf, 1 << 20)) {
            $gc += ($buf =~ tr/cCgG//);
        }
        $s->{got} = $gc;
    }
}

sub verify {
    my ($s) = @_;
    die "counted $s->{got} C/G/c/g bytes, expected $s->{expect}\n" unless $s->{got} == $s->{expect};
}

sub teardown { close($_[0]->{fh}); }

exit LayertaxHarness::main('scan-perl', [
    {name => 'perl-tr', description => 'while (my $line = <IN>) { $gc += ($line =~ tr/cCgG//) }', ops_per_iter => 1,
     setup => \&setup, run => \&run_lines, verify => \&verify, teardown => \&teardown},
    {name => 'perl-tr-block', description => 'read() 1 MiB blocks, tr/cCgG// on each', ops_per_iter => 1,
     setup => \&setup, run => \&run_blocks, verify => \&verify, teardown => \&teardown},
]);
