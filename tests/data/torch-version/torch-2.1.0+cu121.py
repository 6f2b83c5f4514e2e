__version__ = '2.1.0+cu121'
debug = False
cuda = '12.1'
git_version = '7bcf7da3a268b435777fe87c7794c382f444e86d'
hip = None
