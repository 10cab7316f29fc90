"""Django against a server: `migrate` (contenttypes, auth and an
agent-memory app, whose foreign keys Django declares DEFERRABLE INITIALLY
DEFERRED and whose second migration adds a column with one), then the ORM
as an app uses it: JSON lookups, annotate(Count) grouped by the primary
key alone, F() updates, nested atomic blocks (savepoints), cascades,
many-to-many, a fixture loaded with forward references (checked at
COMMIT), an orphan caught at COMMIT, check_constraints, and
GenericIPAddressField (inet). Prints what
it reads; django_check.out is what PostgreSQL 15 printed.

Usage: django_check.py HOST PORT USER DBNAME"""
import io
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
(os.environ['CAIRN_DJANGO_HOST'], os.environ['CAIRN_DJANGO_PORT'],
 os.environ['CAIRN_DJANGO_USER'], os.environ['CAIRN_DJANGO_NAME']) = sys.argv[1:5]
os.environ['DJANGO_SETTINGS_MODULE'] = 'settings'

import django
django.setup()
from django.core import serializers
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.db.models import Count, F, Sum
from django.contrib.auth.models import Group, Permission, User
from memapp.models import Agent, Memory, Tag, Visit

call_command('migrate', verbosity=0, stdout=io.StringIO())
with connection.cursor() as c:
    c.execute("SELECT conname, condeferrable, condeferred FROM pg_constraint WHERE contype = 'f' "
              "AND conrelid::regclass::text LIKE 'memapp%' ORDER BY conrelid::regclass::text, conkey")
    print('deferrable keys', [(d, i) for _, d, i in c.fetchall()])

claude = Agent.objects.create(name='claude')
codex = Agent.objects.create(name='codex', mentor=claude, kind='reviewer')
root = Memory.objects.create(agent=claude, task='fix flaky test', meta={'repo': 'cairn', 'n': 0}, score=0.5)
for i in range(1, 5):
    Memory.objects.create(agent=codex if i % 2 else claude, parent=root, task=f'step {i}',
                          meta={'repo': 'cairn' if i < 3 else 'hivemind', 'n': i}, score=i)
print('cairn memories', Memory.objects.filter(meta__repo='cairn').count())
print('n >= 3', list(Memory.objects.filter(meta__n__gte=3).order_by('task').values_list('task', flat=True)))
print('per agent', list(Agent.objects.annotate(n=Count('memories')).order_by('name').values_list('name', 'kind', 'n')))
print('children', list(Memory.objects.annotate(k=Count('children')).filter(k__gt=0).values_list('task', 'k')))
Memory.objects.filter(agent=codex).update(score=F('score') * 10)
print('top', list(Memory.objects.order_by('-score').values_list('task', 'score')[:2]))
print('sum', Memory.objects.aggregate(s=Sum('score'))['s'])
print('mentees', list(claude.agent_set.values_list('name', flat=True)))

with transaction.atomic():
    gemini = Agent.objects.create(name='gemini')
    Memory.objects.create(agent=gemini, task='draft', meta={})
    try:
        with transaction.atomic():
            Agent.objects.create(name='claude')
    except IntegrityError as e:
        print('duplicate', type(e.__cause__).__name__)
print('agents', Agent.objects.count())

bug = Tag.objects.create(label='bug')
perf = Tag.objects.create(label='perf')
bug.memories.add(*Memory.objects.filter(score__gte=2))
perf.memories.add(root)
print('tags', list(Tag.objects.annotate(n=Count('memories')).order_by('label').values_list('label', 'n')))
print('tagged bug', list(Memory.objects.filter(tags__label='bug').order_by('task').values_list('task', flat=True)))

codex.delete()
print('after cascade', Memory.objects.count(), list(Agent.objects.order_by('name').values_list('name', flat=True)))
root.delete()
print('orphaned children', Memory.objects.filter(parent__isnull=True).count())

alice = User.objects.create_user('alice', 'alice@example.com', 'pw')
devs = Group.objects.create(name='devs')
perm = Permission.objects.get(codename='add_memory')
devs.permissions.add(perm)
alice.groups.add(devs)
print('perm', User.objects.get(username='alice').has_perm('memapp.add_memory'))

fixture = json.dumps([
    {'model': 'memapp.memory', 'pk': 100, 'fields': {'agent': 50, 'task': 'from fixture', 'meta': {}, 'score': 1}},
    {'model': 'memapp.agent', 'pk': 50, 'fields': {'name': 'loaded', 'kind': 'coder'}},
])
with transaction.atomic():
    for obj in serializers.deserialize('json', fixture):
        obj.save()
print('fixture', Memory.objects.get(pk=100).agent.name)
try:
    with transaction.atomic():
        Memory.objects.create(agent_id=999, task='orphan', meta={})
except IntegrityError as e:
    print('orphan', type(e.__cause__).__name__)
with transaction.atomic(), connection.constraint_checks_disabled():
    Memory.objects.create(agent_id=51, task='early', meta={})
    Agent.objects.create(pk=51, name='late')
    connection.check_constraints()
print('checked', Memory.objects.get(task='early').agent.name)

# GenericIPAddressField: inet, its lookups (startswith goes through
# HOST()), order and grouping.
for ip, ip4 in [('192.168.1.5', '192.168.1.5'), ('10.0.0.1', None), ('2001:db8::1', None), ('::ffff:10.0.0.2', '10.0.0.2'), ('10.0.0.1', None)]:
    Visit.objects.create(ip=ip, ip4=ip4)
print('visits', list(Visit.objects.order_by('ip', 'id').values_list('ip', 'ip4')))
print('visit lookups', Visit.objects.filter(ip='10.0.0.1').count(), Visit.objects.filter(ip__startswith='192.').count(),
      Visit.objects.filter(ip__in=['2001:db8::1', '10.0.0.2']).count(), Visit.objects.filter(ip4__isnull=False).count(),
      Visit.objects.extra(where=["ip << '10.0.0.0/8'"]).count())
print('per ip', list(Visit.objects.values('ip').annotate(n=Count('id')).order_by('-n', 'ip').values_list('ip', 'n')))

# Introspection (inspectdb reads pg_index's keys and options with
# unnest(indkey, indoption) WITH ORDINALITY), then the app's migrations
# unapplied (constraints found and dropped by name) and applied again.
out = io.StringIO()
call_command('inspectdb', 'memapp_agent', 'memapp_memory', stdout=out)
print(out.getvalue().split('from django.db import models', 1)[1].strip())
print('constraints', sorted(connection.introspection.get_constraints(connection.cursor(), 'memapp_memory')))
call_command('migrate', 'memapp', 'zero', verbosity=0, stdout=io.StringIO())
print('unapplied', sorted(t for t in connection.introspection.table_names() if t.startswith('memapp')))
call_command('migrate', 'memapp', verbosity=0, stdout=io.StringIO())
print('applied again', sorted(t for t in connection.introspection.table_names() if t.startswith('memapp')))
