from layertax.cli import main

main()
