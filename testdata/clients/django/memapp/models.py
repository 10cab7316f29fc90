"""An agent-memory app as a Django project would write it: every foreign
key is DEFERRABLE INITIALLY DEFERRED in PostgreSQL (Django's default)."""
from django.db import models


class Agent(models.Model):
    name = models.CharField(max_length=100, unique=True)
    # Added by the second migration: a column with a foreign key, which
    # Django adds with ALTER TABLE ... ADD COLUMN ... REFERENCES ...
    # DEFERRABLE INITIALLY DEFERRED; SET CONSTRAINTS ... IMMEDIATE.
    mentor = models.ForeignKey('self', null=True, on_delete=models.SET_NULL)
    kind = models.CharField(max_length=20, default='coder')


class Memory(models.Model):
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name='memories')
    parent = models.ForeignKey('self', null=True, on_delete=models.SET_NULL, related_name='children')
    task = models.TextField()
    meta = models.JSONField(default=dict)
    score = models.FloatField(default=0)

    class Meta:
        indexes = [models.Index(fields=['score'])]


class Tag(models.Model):
    label = models.SlugField(unique=True)
    memories = models.ManyToManyField(Memory, related_name='tags')


class Visit(models.Model):
    """A request log: GenericIPAddressField is an inet column."""
    ip = models.GenericIPAddressField()
    ip4 = models.GenericIPAddressField(protocol='IPv4', null=True)
