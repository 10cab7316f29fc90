"""Django settings for django_check.py: the server's DSN from the
environment (CAIRN_DJANGO_HOST, _PORT, _USER, _NAME)."""
import os

SECRET_KEY = 'cairn-django-check'
USE_TZ = True
INSTALLED_APPS = ['django.contrib.contenttypes', 'django.contrib.auth', 'memapp']
DEFAULT_AUTO_FIELD = 'django.db.models.AutoField'
DATABASES = {'default': {
    'ENGINE': 'django.db.backends.postgresql',
    'HOST': os.environ['CAIRN_DJANGO_HOST'],
    'PORT': os.environ['CAIRN_DJANGO_PORT'],
    'USER': os.environ['CAIRN_DJANGO_USER'],
    'NAME': os.environ['CAIRN_DJANGO_NAME'],
}}
