import sys

from roofline.cli import main

sys.exit(main())
